// Passkeys (WebAuthn) for Warden's pages: the browser's half of the ceremonies the server runs
// (server/src/access/passkeys). Served from Warden's own origin, so the pages' CSP needs only
// `script-src 'self'`. It acts on buttons marked `data-passkey` (found when clicked, so buttons the app
// renders later work too) and shows what happened in the nearest `[data-passkey-status]`:
//   sign-in  /sign-in: a discoverable passkey signs in, then the app opens;
//   join     an invitation's page: the login and name typed above, a new passkey instead of a password;
//   add      Settings → Your account: a new passkey named by `[data-passkey-name]`, then the page reloads.
"use strict";
(() => {
  const supported = typeof window.PublicKeyCredential === "function" && !!navigator.credentials;

  function bytes(base64url) {
    const base64 = base64url.replace(/-/g, "+").replace(/_/g, "/");
    const raw = atob(base64 + "===".slice((base64.length + 3) % 4));
    return Uint8Array.from(raw, (c) => c.charCodeAt(0)).buffer;
  }

  function base64url(buffer) {
    let raw = "";
    for (const b of new Uint8Array(buffer)) raw += String.fromCharCode(b);
    return btoa(raw).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  /** The server's creation options (webauthn-rs, base64url strings) as the browser takes them. */
  function creationOptions(options) {
    const o = structuredClone(options.publicKey);
    o.challenge = bytes(o.challenge);
    o.user.id = bytes(o.user.id);
    o.excludeCredentials = (o.excludeCredentials || []).map((c) => ({ ...c, id: bytes(c.id) }));
    return { publicKey: o };
  }

  function requestOptions(options) {
    const o = structuredClone(options.publicKey);
    o.challenge = bytes(o.challenge);
    o.allowCredentials = (o.allowCredentials || []).map((c) => ({ ...c, id: bytes(c.id) }));
    return { publicKey: o };
  }

  function registration(credential) {
    return {
      id: credential.id,
      rawId: base64url(credential.rawId),
      type: credential.type,
      response: {
        attestationObject: base64url(credential.response.attestationObject),
        clientDataJSON: base64url(credential.response.clientDataJSON),
      },
      extensions: credential.getClientExtensionResults(),
    };
  }

  function assertion(credential) {
    const r = credential.response;
    return {
      id: credential.id,
      rawId: base64url(credential.rawId),
      type: credential.type,
      response: {
        authenticatorData: base64url(r.authenticatorData),
        clientDataJSON: base64url(r.clientDataJSON),
        signature: base64url(r.signature),
        userHandle: r.userHandle ? base64url(r.userHandle) : null,
      },
      extensions: credential.getClientExtensionResults(),
    };
  }

  /** POSTs `body` as JSON; the answer's JSON, or an Error with the server's message. */
  async function post(path, body) {
    const response = await fetch(path, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) {
      const message = (answer.error && answer.error.message) || `the server answered ${response.status}`;
      throw new Error(message);
    }
    return answer;
  }

  function field(id) {
    const input = document.getElementById(id);
    return input ? input.value : "";
  }

  async function signIn() {
    const { ceremony, options } = await post("/sign-in/passkey/options", {});
    const credential = await navigator.credentials.get(requestOptions(options));
    const { location } = await post("/sign-in/passkey", { ceremony, credential: assertion(credential) });
    window.location.assign(location);
  }

  async function join() {
    const base = window.location.pathname.replace(/\/+$/, "");
    const { ceremony, options } = await post(`${base}/passkey/options`, { login: field("login"), name: field("name") });
    const credential = await navigator.credentials.create(creationOptions(options));
    const { location } = await post(`${base}/passkey`, { ceremony, credential: registration(credential) });
    window.location.assign(location);
  }

  async function add(button) {
    const area = button.closest("[data-passkey-area]") || document;
    const nameInput = area.querySelector("[data-passkey-name]");
    const name = (nameInput && nameInput.value.trim()) || "Passkey";
    const { ceremony, options } = await post("/api/me/passkeys/options", { name });
    const credential = await navigator.credentials.create(creationOptions(options));
    await post("/api/me/passkeys", { ceremony, credential: registration(credential) });
    window.location.reload();
  }

  function say(button, text) {
    const area = button.closest("[data-passkey-area]") || document;
    const status = area.querySelector("[data-passkey-status]");
    if (status) status.textContent = text;
  }

  const actions = { "sign-in": signIn, join, add };

  document.addEventListener("click", (event) => {
    const button = event.target instanceof Element ? event.target.closest("button[data-passkey]") : null;
    const action = button && actions[button.dataset.passkey];
    if (!action) return;
    event.preventDefault();
    if (!supported) {
      say(button, "This browser cannot use passkeys.");
      return;
    }
    button.disabled = true;
    say(button, "Waiting for your passkey…");
    action(button).then(
      () => say(button, ""),
      (error) => {
        button.disabled = false;
        const cancelled = error && error.name === "NotAllowedError";
        say(button, cancelled ? "No passkey was used." : `The passkey did not work: ${error.message}`);
      },
    );
  });

  function reveal() {
    if (!supported) return;
    for (const area of document.querySelectorAll("[data-passkey-area][hidden]")) area.hidden = false;
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", reveal);
  else reveal();
})();
