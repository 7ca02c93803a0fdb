// The dashboard's one script: passkey ceremonies (WebAuthn) for the
// buttons that carry data-passkey, and copy buttons. Pages work as forms
// without it, except the passkey steps, which need the browser's API.
(function () {
  "use strict";
  function b64u(buf) {
    var s = "", bytes = new Uint8Array(buf);
    for (var i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
    return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function unb64u(s) {
    s = s.replace(/-/g, "+").replace(/_/g, "/");
    while (s.length % 4) s += "=";
    var bin = atob(s), out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out.buffer;
  }
  function csrf() {
    var m = document.querySelector('meta[name="csrf-token"]');
    return m ? m.content : "";
  }
  function post(url, body) {
    return fetch(url, {method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf()},
      body: JSON.stringify(body || {})}).then(function (r) {
      return r.json().then(function (j) {
        if (!r.ok) throw new Error(j.error ? j.error.message : "The request failed.");
        return j;
      });
    });
  }
  function cred(c) {
    var r = c.response, out = {id: c.id, rawId: b64u(c.rawId), type: c.type, response: {clientDataJSON: b64u(r.clientDataJSON)}};
    if (r.attestationObject) {
      out.response.attestationObject = b64u(r.attestationObject);
      if (r.getTransports) out.response.transports = r.getTransports();
    } else {
      out.response.authenticatorData = b64u(r.authenticatorData);
      out.response.signature = b64u(r.signature);
      out.response.userHandle = r.userHandle ? b64u(r.userHandle) : null;
    }
    return out;
  }
  function run(btn) {
    var base = btn.getAttribute("data-passkey"), kind = btn.getAttribute("data-kind");
    var status = document.getElementById("status");
    status.textContent = "Waiting for your passkey…";
    btn.disabled = true;
    post(base + "/begin").then(function (b) {
      var pk = b.options.publicKey;
      pk.challenge = unb64u(pk.challenge);
      if (kind === "create") {
        pk.user.id = unb64u(pk.user.id);
        (pk.excludeCredentials || []).forEach(function (c) { c.id = unb64u(c.id); });
        return navigator.credentials.create({publicKey: pk}).then(function (c) { return [b, c]; });
      }
      (pk.allowCredentials || []).forEach(function (c) { c.id = unb64u(c.id); });
      return navigator.credentials.get({publicKey: pk}).then(function (c) { return [b, c]; });
    }).then(function (bc) {
      // return_to: a reauthentication comes back to this page.
      return post(base + "/finish", {ceremony: bc[0].ceremony, credential: cred(bc[1]),
        return_to: window.location.pathname + window.location.search});
    }).then(function (f) {
      status.textContent = "Done.";
      window.location.assign(f.redirect);
    }).catch(function (e) {
      status.textContent = e.message + " Try again.";
      btn.disabled = false;
    });
  }
  document.querySelectorAll("[data-passkey]").forEach(function (btn) {
    btn.hidden = false;
    btn.addEventListener("click", function () { run(btn); });
  });
  document.querySelectorAll("[data-copy]").forEach(function (btn) {
    btn.addEventListener("click", function () {
      var el = document.getElementById(btn.getAttribute("data-copy"));
      navigator.clipboard.writeText(el.textContent).then(function () { btn.textContent = "Copied"; });
    });
  });
})();
