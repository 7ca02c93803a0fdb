// The quote page's script (after htmlpage's localtime.js, which shows
// times in the reader's time zone): runs the signature pad, sends the
// acceptance (or signature) as JSON and, once the quote is accepted, asks
// for the deposit's checkout and goes there.
// No framework and no third-party request; the data comes from the
// quote-data JSON block. Text from the customer or the server only ever
// goes into the page through textContent.
(function () {
  "use strict";

  var data = JSON.parse(document.getElementById("quote-data").textContent);
  var $ = function (id) { return document.getElementById(id); };

  // The export stays within what the server accepts (50–2000 × 20–1000 px,
  // at most 40 KiB): 1 CSS pixel a pixel, at most 1000 px wide.
  var EXPORT_MAX_WIDTH = 1000, EXPORT_MIN_WIDTH = 50, EXPORT_MIN_HEIGHT = 20;
  var MIN_INK_LENGTH = 15; // CSS px of strokes below which the pad counts as empty
  var INK = "#0d1b33", LINE_WIDTH = 2.6;

  // ---- calls to the page's own API -----------------------------------------

  // ApiError carries the error body's code, message and details; status 0
  // is a network failure.
  function ApiError(status, code, message, details) {
    this.status = status; this.code = code; this.message = message; this.details = details || {};
  }

  async function post(path, body) {
    var res, json = null;
    try {
      res = await fetch(path, {
        method: "POST", cache: "no-store", credentials: "same-origin",
        headers: { "Content-Type": "application/json", "Accept": "application/json" },
        body: JSON.stringify(body)
      });
      json = await res.json().catch(function () { return null; });
    } catch (e) {
      throw new ApiError(0, "network", "We could not reach the server. Check your connection and try again.");
    }
    if (res.ok) return json || {};
    var err = (json && json.error) || {};
    var message = err.message || "Something went wrong (error " + res.status + "). Please try again in a moment.";
    throw new ApiError(res.status, err.code || "error", message, err.details);
  }

  // ---- signature pad ---------------------------------------------------------

  // Pad draws with any pointer (mouse, finger, pen) on a canvas sized to
  // its box at the screen's pixel density. Strokes are kept in CSS pixels,
  // so the pad can redraw them after a resize and export them at 1×.
  function Pad(canvas, box, onChange) {
    var ctx = canvas.getContext("2d");
    var strokes = [], current = null, w = 0, h = 0, dpr = 1;

    function drawStroke(c, pts) {
      c.strokeStyle = INK; c.fillStyle = INK;
      c.lineWidth = LINE_WIDTH; c.lineCap = "round"; c.lineJoin = "round";
      if (pts.length === 1) {
        c.beginPath(); c.arc(pts[0].x, pts[0].y, LINE_WIDTH / 2, 0, 2 * Math.PI); c.fill();
        return;
      }
      c.beginPath();
      c.moveTo(pts[0].x, pts[0].y);
      // Through the midpoints, with each point as a control point: smooth
      // curves instead of the corners of straight segments.
      for (var i = 1; i < pts.length - 1; i++) {
        c.quadraticCurveTo(pts[i].x, pts[i].y, (pts[i].x + pts[i + 1].x) / 2, (pts[i].y + pts[i + 1].y) / 2);
      }
      c.lineTo(pts[pts.length - 1].x, pts[pts.length - 1].y);
      c.stroke();
    }

    function redraw() {
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, w, h);
      strokes.forEach(function (s) { drawStroke(ctx, s); });
      box.classList.toggle("has-ink", strokes.length > 0);
    }

    function resize() {
      var r = canvas.getBoundingClientRect();
      if (!r.width || !r.height) return;
      if (w && (r.width !== w || r.height !== h)) {
        var sx = r.width / w, sy = r.height / h;
        strokes.forEach(function (s) { s.forEach(function (p) { p.x *= sx; p.y *= sy; }); });
      }
      w = r.width; h = r.height;
      dpr = window.devicePixelRatio || 1;
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(h * dpr);
      redraw();
    }

    function point(e) {
      var r = canvas.getBoundingClientRect();
      return { x: Math.min(Math.max(e.clientX - r.left, 0), r.width), y: Math.min(Math.max(e.clientY - r.top, 0), r.height) };
    }

    canvas.addEventListener("pointerdown", function (e) {
      if (e.pointerType === "mouse" && e.button !== 0) return;
      if (current) return; // a second finger does not draw
      e.preventDefault();
      try { canvas.setPointerCapture(e.pointerId); } catch (err) { /* the pointer is gone */ }
      if (!w) resize();
      current = { id: e.pointerId, pts: [point(e)] };
      strokes.push(current.pts);
      redraw();
    });
    canvas.addEventListener("pointermove", function (e) {
      if (!current || e.pointerId !== current.id) return;
      e.preventDefault();
      var events = e.getCoalescedEvents ? e.getCoalescedEvents() : [];
      if (!events.length) events = [e];
      events.forEach(function (ev) { current.pts.push(point(ev)); });
      redraw();
    });
    function end(e) {
      if (!current || e.pointerId !== current.id) return;
      current = null;
      onChange();
    }
    canvas.addEventListener("pointerup", end);
    canvas.addEventListener("pointercancel", end);

    if (window.ResizeObserver) new ResizeObserver(resize).observe(canvas);
    else window.addEventListener("resize", resize);
    resize();

    return {
      clear: function () { strokes = []; current = null; redraw(); onChange(); },
      // inked reports whether the strokes are long enough to be a
      // signature rather than a stray tap.
      inked: function () {
        var length = 0;
        strokes.forEach(function (s) {
          for (var i = 1; i < s.length; i++) length += Math.hypot(s[i].x - s[i - 1].x, s[i].y - s[i - 1].y);
        });
        return length >= MIN_INK_LENGTH;
      },
      // png is the signature as a PNG data URL: dark strokes on white, at
      // 1 CSS pixel a pixel, scaled down to at most EXPORT_MAX_WIDTH wide
      // and up to at least the server's least size.
      png: function () {
        var scale = Math.min(1, EXPORT_MAX_WIDTH / w);
        var ew = Math.max(EXPORT_MIN_WIDTH, Math.round(w * scale));
        var eh = Math.max(EXPORT_MIN_HEIGHT, Math.round(h * scale));
        var out = document.createElement("canvas");
        out.width = ew; out.height = eh;
        var c = out.getContext("2d");
        c.fillStyle = "#fff"; c.fillRect(0, 0, ew, eh);
        c.setTransform(ew / w, 0, 0, eh / h, 0, 0);
        strokes.forEach(function (s) { drawStroke(c, s); });
        return out.toDataURL("image/png");
      }
    };
  }

  // ---- the form --------------------------------------------------------------

  var form = $("accept-form");
  var fields = {};
  document.querySelectorAll("[data-field]").forEach(function (el) { fields[el.getAttribute("data-field")] = el; });

  function setFieldError(name, text) {
    var el = fields[name];
    if (!el) return;
    var p = el.querySelector(".field-error");
    p.textContent = text || "";
    p.hidden = !text;
    el.classList.toggle("has-error", !!text);
    var target = $(el.getAttribute("data-focus"));
    if (target && target.tagName === "INPUT") {
      if (text) target.setAttribute("aria-invalid", "true"); else target.removeAttribute("aria-invalid");
    }
  }

  function formMessage(text, reload) {
    $("form-message-text").textContent = text || "";
    $("form-message").hidden = !text;
    $("reload").hidden = !reload;
  }

  function clearErrors() {
    Object.keys(fields).forEach(function (name) { setFieldError(name, ""); });
    $("error-summary").hidden = true;
    $("error-list").textContent = "";
    formMessage("");
  }

  // showErrors shows each error next to its field and all of them in the
  // summary at the top of the form, which takes the focus, as the GOV.UK
  // Design System does: errors is a list of {field, text}.
  function showErrors(errors) {
    var list = $("error-list");
    list.textContent = "";
    errors.forEach(function (e) {
      setFieldError(e.field, e.text);
      var li = document.createElement("li");
      var el = fields[e.field];
      var target = el && $(el.getAttribute("data-focus"));
      if (target) {
        var a = document.createElement("a");
        a.href = "#" + target.id;
        a.textContent = e.text;
        a.addEventListener("click", function (ev) {
          ev.preventDefault();
          el.scrollIntoView({ block: "start" });
          target.focus({ preventScroll: true });
        });
        li.appendChild(a);
      } else {
        li.textContent = e.text;
      }
      list.appendChild(li);
    });
    $("error-summary").hidden = false;
    $("error-summary").scrollIntoView({ block: "start" });
    $("error-summary").focus({ preventScroll: true });
  }

  // reasonText puts the server's reason for a field ("must be a valid
  // email address") after the field's name, as a sentence.
  function reasonText(name, reason) {
    reason = String(reason || "").trim();
    var el = fields[name];
    var label = el ? el.getAttribute("data-label") : name.replace(/_/g, " ");
    if (/^(must|is|are|should|cannot|can't|was|has|needs)\b/.test(reason)) reason = label + " " + reason;
    else reason = reason.charAt(0).toUpperCase() + reason.slice(1);
    return /[.!?]$/.test(reason) ? reason : reason + ".";
  }

  var EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

  function emailError(value) {
    if (!value) return "Enter your email address.";
    if (!EMAIL.test(value)) return "Enter an email address like name@example.com.";
    return "";
  }

  var pad = null;

  // body checks the form and returns the JSON to send, or null after
  // showing what is missing. The server checks everything again.
  function body() {
    var errors = [];
    var add = function (field, text) { if (text) errors.push({ field: field, text: text }); };
    if (!data.binding) {
      var email = $("accepter-email").value.trim();
      add("accepter_email", emailError(email));
      if (errors.length) { showErrors(errors); return null; }
      return { accepter_email: email };
    }
    var name = $("signer-name").value.trim();
    var signerEmail = $("signer-email").value.trim();
    var choice = form.querySelector("input[name=liability]:checked");
    var hasChoices = !!form.querySelector("input[name=liability]");
    add("signer_name", name ? "" : "Enter your full name.");
    add("signer_email", emailError(signerEmail));
    add("liability_election", choice || !hasChoices ? "" : "Choose how your belongings should be protected.");
    add("esign_consent_checked", $("esign-consent").checked ? "" : "Tick the box to agree to sign electronically.");
    add("signature_image_b64", pad && pad.inked() ? "" : "Draw your signature in the box.");
    if (errors.length) { showErrors(errors); return null; }
    return {
      signer_name: name,
      signer_email: signerEmail,
      signature_image_b64: pad.png(),
      liability_election: choice ? choice.value : "",
      esign_consent_checked: true
    };
  }

  var sending = false;

  async function submit(e) {
    e.preventDefault();
    if (sending) return;
    clearErrors();
    var b = body();
    if (!b) return;
    var button = $("submit"), label = button.textContent;
    sending = true;
    button.disabled = true;
    button.textContent = "Sending…";
    form.setAttribute("aria-busy", "true");
    try {
      var res = await post(data.accept_path, b);
      showAccepted(res);
    } catch (err) {
      failed(err);
    } finally {
      sending = false;
      button.disabled = false;
      button.textContent = label;
      form.removeAttribute("aria-busy");
    }
  }

  function failed(err) {
    var fieldErrors = err.details && err.details.fields;
    if (err.status === 422 && fieldErrors && Object.keys(fieldErrors).length) {
      showErrors(Object.keys(fieldErrors).map(function (name) {
        return { field: name, text: reasonText(name, fieldErrors[name]) };
      }));
      return;
    }
    if (err.status === 409 || err.status === 404 || err.status === 410 || err.status === 403) {
      // Sending again cannot succeed: the quote changed. Only reloading
      // helps, so that is the one button left.
      formMessage(err.message + " Reload the page to see the latest version of your quote.", true);
      $("submit").hidden = true;
      $("next-step").hidden = true;
    } else {
      formMessage(err.message, false);
    }
    $("form-message").scrollIntoView({ block: "center" });
  }

  // showAccepted switches to the accepted state without a reload: the
  // call's answer says whether the quote is now accepted or signed and
  // whether a deposit is due.
  function showAccepted(res) {
    var signed = res.status === "signed";
    $("accept").hidden = true;
    $("done-title").textContent = signed ? "Quote signed" : "Quote accepted";
    $("done-text").textContent = "Thank you. " + data.company + (signed ? " has your signed quote." : " has your acceptance.");
    $("deposit-pay").hidden = !res.deposit_required;
    $("deposit-none").hidden = !!res.deposit_required;
    $("deposit-status").hidden = true;
    // The date the quote was valid until no longer matters.
    if ($("expiry-row")) $("expiry-row").hidden = true;
    // The signed copy (signature, evidence hash, time) is rendered by the
    // server: the link reloads the page into it.
    if ($("copy-link")) $("copy-link").hidden = !signed;
    $("done").hidden = false;
    $("done").scrollIntoView({ block: "start" });
    $("done-title").focus({ preventScroll: true });
  }

  // ---- deposit ---------------------------------------------------------------

  function payMessage(text, isError) {
    var m = $("pay-message");
    m.textContent = text || "";
    m.className = "message" + (isError ? " is-error" : "");
  }

  async function pay() {
    var button = $("pay"), label = button.getAttribute("data-label");
    payMessage("");
    $("pay-failed").hidden = true;
    button.disabled = true;
    button.textContent = "Opening the payment page…";
    try {
      var res = await post(data.deposit_path, {});
      var url = res.checkout_url;
      if (typeof url !== "string" || !/^https?:\/\//i.test(url)) {
        throw new ApiError(200, "bad_answer", "We could not open the payment page. Please try again.");
      }
      window.location.href = url;
      return; // the button stays disabled while the browser leaves
    } catch (err) {
      var text = err.message;
      if (err.status === 409 || err.status === 403) text += " Reload the page to see the latest.";
      payMessage(text, true);
    }
    button.disabled = false;
    button.textContent = label;
  }

  // ---- wiring ------------------------------------------------------------------

  function init() {
    if (form) {
      form.addEventListener("submit", submit);
      $("reload").addEventListener("click", function () { window.location.reload(); });
      // A field's error goes as soon as it is put right, not at the
      // next submit.
      var consent = $("esign-consent");
      if (consent) consent.addEventListener("change", function () {
        if (consent.checked) setFieldError("esign_consent_checked", "");
      });
      form.querySelectorAll("input[name=liability]").forEach(function (r) {
        r.addEventListener("change", function () { setFieldError("liability_election", ""); });
      });
      var canvas = $("signature");
      if (canvas && canvas.getContext) {
        pad = Pad(canvas, $("pad"), function () {
          if (pad && pad.inked()) setFieldError("signature_image_b64", "");
        });
        $("clear-signature").addEventListener("click", function () {
          pad.clear();
          $("signature-status").textContent = "Signature cleared.";
        });
      }
    }
    var print = $("print-copy");
    if (print) print.addEventListener("click", function () { window.print(); });
    var payButton = $("pay");
    if (payButton) {
      payButton.setAttribute("data-label", payButton.textContent);
      payButton.addEventListener("click", pay);
      // Back from the payment page, the browser may restore this page as
      // it was left: with the button waiting.
      window.addEventListener("pageshow", function (e) {
        if (e.persisted) { payButton.disabled = false; payButton.textContent = payButton.getAttribute("data-label"); }
      });
    }
  }

  init();
})();
