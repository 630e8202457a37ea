// Warden's service worker: shows a notification for each Web Push message (the server encrypts a small JSON
// payload: title, body, url, and its decision links as actions) and opens its link when the notification is
// clicked, or the confirm page of the action tapped (Approve…, Deny…: nothing is decided before the tap there). Served from the site's
// root so its scope covers the whole app; it fetches nothing and caches nothing.
"use strict";

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch {
    message = { body: event.data ? event.data.text() : "" };
  }
  const title = message.title || "Warden";
  const decisions = (Array.isArray(message.links) ? message.links : []).filter(
    (link) => (link.intent === "approve" || link.intent === "deny") && typeof link.url === "string",
  );
  const options = {
    body: message.body || "",
    data: { url: message.url || "/", links: decisions },
    actions: decisions.map((link) => ({ action: link.intent, title: link.label })),
    // One notification per request link: a reminder replaces the first.
    tag: message.url || undefined,
    renotify: !!message.url,
    requireInteraction: message.risk === "high",
  };
  event.waitUntil(self.registration.showNotification(title, options));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const data = event.notification.data || {};
  const chosen = (data.links || []).find((link) => link.intent === event.action);
  const target = new URL((chosen && chosen.url) || data.url || "/", self.location.origin);
  event.waitUntil(
    (async () => {
      // Reuse a Warden tab on the same address if one is open.
      const open = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      for (const client of open) {
        if (client.url === target.href && "focus" in client) return client.focus();
      }
      return self.clients.openWindow(target.href);
    })(),
  );
});
