// Web Push for Warden's pages: Settings → Notifications' "Allow notifications on this browser" asks the
// browser's permission, registers the service worker (/warden-sw.js), subscribes with the server's VAPID key
// and registers the subscription as a channel of the signed-in person; "Stop" removes it and unsubscribes.
// It acts on buttons marked `data-push="allow"` / `data-push="stop"` (found when clicked, so buttons the app
// renders later work too) and says what happened in `[data-push-status]`. Served from this origin, so the
// pages' CSP needs only `script-src 'self'` (and `worker-src 'self'` for the worker).
"use strict";
(() => {
  const supported = "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;

  function bytes(base64url) {
    const base64 = base64url.replace(/-/g, "+").replace(/_/g, "/");
    const raw = atob(base64 + "===".slice((base64.length + 3) % 4));
    return Uint8Array.from(raw, (c) => c.charCodeAt(0));
  }

  function say(button, text, failed) {
    const status = document.querySelector("[data-push-status]");
    if (!status) return;
    status.textContent = text;
    status.setAttribute("role", failed ? "alert" : "status");
    status.classList.toggle("error", !!failed);
  }

  async function api(path, body) {
    const response = await fetch(path, {
      method: body === undefined ? "GET" : "POST",
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
    });
    if (!response.ok) {
      let message = `the server answered ${response.status}`;
      try {
        message = (await response.json()).error.message || message;
      } catch {}
      throw new Error(message);
    }
    return response.status === 204 ? null : response.json();
  }

  async function registration() {
    await navigator.serviceWorker.register("/warden-sw.js", { scope: "/" });
    return navigator.serviceWorker.ready;
  }

  async function allow(button) {
    if (!supported) throw new Error("this browser cannot receive push notifications");
    const permission = await Notification.requestPermission();
    if (permission !== "granted") {
      throw new Error("notifications are blocked for this site: allow them in the browser's site settings");
    }
    const worker = await registration();
    const { public_key } = await api("/api/push/key");
    let subscription;
    try {
      subscription = await worker.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: bytes(public_key) });
    } catch (e) {
      throw new Error(
        `this browser could not subscribe to its push service (${e && e.message ? e.message : e}); ` +
          "it may be offline or block push messages",
      );
    }
    const json = subscription.toJSON();
    const name = button.dataset.pushName || "This browser";
    await api("/api/push/subscriptions", { name, endpoint: json.endpoint, keys: json.keys });
  }

  async function stop() {
    if (!supported) return;
    const worker = await navigator.serviceWorker.getRegistration("/");
    const subscription = worker && (await worker.pushManager.getSubscription());
    if (!subscription) throw new Error("this browser has no push subscription");
    await api("/api/push/unsubscribe", { endpoint: subscription.endpoint }).catch(() => null);
    await subscription.unsubscribe();
  }

  document.addEventListener("click", async (event) => {
    const button = event.target instanceof Element ? event.target.closest("[data-push]") : null;
    if (!button) return;
    event.preventDefault();
    button.disabled = true;
    try {
      if (button.dataset.push === "allow") {
        say(button, "Asking this browser…");
        await allow(button);
        say(button, "Notifications are on for this browser.");
      } else {
        await stop();
        say(button, "Notifications are off for this browser.");
      }
      // The channel list shows the change.
      window.dispatchEvent(new CustomEvent("warden-channels-changed"));
    } catch (e) {
      say(button, `Could not change notifications: ${e && e.message ? e.message : e}`, true);
    } finally {
      button.disabled = false;
    }
  });
})();
