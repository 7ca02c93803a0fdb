// The capture page's script: records clips room by room, uploads them in
// the background to presigned URLs, keeps the checklist saved and finishes
// the survey (docs/CAPTURE.md). No framework and no third-party request;
// the data comes from the survey-data JSON block. Text from the customer or
// the server only ever goes into the page through textContent.
(function () {
  "use strict";

  var data = JSON.parse(document.getElementById("survey-data").textContent);
  var $ = function (id) { return document.getElementById(id); };

  var UPLOADS_AT_ONCE = 1; // one at a time: the first clips finish first on a slow uplink
  var SAVE_DELAY_MS = 1200;
  var MIME_TYPES = ["video/mp4;codecs=avc1", "video/mp4", "video/webm;codecs=vp9", "video/webm;codecs=vp8", "video/webm"];
  var FORBIDDEN_HEADERS = { "content-length": 1, "host": 1, "connection": 1, "accept-encoding": 1 };

  var S = {
    clipsUsed: data.clips_used,   // as the server counts them (a rejected clip gives its place back)
    clips: [],                    // this visit's clips
    earlier: data.clips.slice(),  // clips from an earlier visit
    active: 0,                    // uploads running
    checklist: {},                // room → key → count
    room: "",                     // the room the checklist shows
    stream: null,
    rec: null,
    saving: null, dirty: false, saveTimer: 0,
    finishing: false, over: false,
    waiters: [],
    framesUsed: data.frames_used || 0, // as the server counts them
    sending: [],                       // frame uploads, a promise a clip
    polls: 0, pollTimer: 0             // verdict polls made, the next one
  };

  var canRecord = !!(navigator.mediaDevices && navigator.mediaDevices.getUserMedia && window.MediaRecorder);

  // ---- calls to the page's own API ----------------------------------------

  function sleep(ms) { return new Promise(function (r) { setTimeout(r, ms); }); }

  // ApiError carries the error body's code, message and details; status 0
  // is a network failure.
  function ApiError(status, code, message, details) {
    this.status = status; this.code = code; this.message = message; this.details = details || {};
  }

  // api makes one JSON call, retrying what may succeed later (network
  // errors, 429, 5xx): every call of the page is idempotent. A dead link or
  // a finished survey switches the page to the matching end state. A quiet
  // call retries once and only throws.
  async function api(method, path, body, quiet) {
    var wait = 1000;
    for (var attempt = 1; ; attempt++) {
      var res, json = null;
      try {
        res = await fetch(data.api_base + path, method === "GET"
          ? { method: method, cache: "no-store", credentials: "same-origin" }
          : {
            method: method, cache: "no-store", credentials: "same-origin", keepalive: true,
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify(body || {})
          });
        json = await res.json().catch(function () { return null; });
      } catch (e) {
        if (attempt < (quiet ? 2 : 5)) { await sleep(wait); wait *= 2; continue; }
        throw new ApiError(0, "network", "We could not reach the server. Check your connection and try again.");
      }
      if (res.ok) return json || {};
      var err = (json && json.error) || {};
      if (!quiet && (res.status === 404 || res.status === 410)) { linkDead(); }
      if (!quiet && res.status === 409 && err.code === "survey_closed") { showDone(); }
      if ((res.status === 429 || res.status >= 500) && attempt < (quiet ? 2 : 4)) {
        var after = parseInt(res.headers.get("Retry-After"), 10);
        await sleep(after > 0 ? Math.min(after, 30) * 1000 : wait); wait *= 2; continue;
      }
      throw new ApiError(res.status, err.code || "error", err.message || "Something went wrong (error " + res.status + "). Please try again.", err.details);
    }
  }

  // ---- rooms -----------------------------------------------------------------

  var roomSelect = $("room"), otherField = $("other-room-field"), otherInput = $("other-room");

  function canonicalRoom(name) {
    name = name.trim();
    for (var i = 0; i < data.rooms.length; i++) {
      if (data.rooms[i].toLowerCase() === name.toLowerCase()) return data.rooms[i];
    }
    return name;
  }

  function isOther() { return roomSelect.selectedOptions[0] && roomSelect.selectedOptions[0].hasAttribute("data-other"); }

  // currentRoom is the room the customer chose, or "" when "Other room" has
  // no name yet.
  function currentRoom() { return isOther() ? canonicalRoom(otherInput.value) : roomSelect.value; }

  function roomError(text) {
    $("other-room-error").textContent = text;
    $("other-room-error").hidden = !text;
    otherField.classList.toggle("has-error", !!text);
  }

  function addRoomOption(name) {
    for (var i = 0; i < roomSelect.options.length; i++) if (roomSelect.options[i].value === name) return;
    var o = document.createElement("option");
    o.value = name; o.textContent = name;
    roomSelect.insertBefore(o, roomSelect.querySelector("[data-other]"));
  }

  function showRoomName() {
    var r = currentRoom() || "room";
    document.querySelectorAll(".room-name").forEach(function (el) { el.textContent = r; });
  }

  function roomChanged() {
    // "Clip saved" is about the room just filmed: another room starts afresh.
    if ($("camera-message").classList.contains("is-ok")) cameraMessage("");
    otherField.hidden = !isOther();
    roomError("");
    showRoomName();
    loadChecklist(currentRoom());
    var next = nextRoom();
    $("next-room").hidden = !next;
    if (next) $("next-room").textContent = "Next room: " + next;
  }

  function nextRoom() {
    if (isOther()) return "";
    var i = data.rooms.indexOf(roomSelect.value);
    return i >= 0 && i + 1 < data.rooms.length ? data.rooms[i + 1] : "";
  }

  // ---- recording ---------------------------------------------------------

  function cameraMessage(text, kind) {
    var m = $("camera-message");
    m.textContent = text || "";
    m.className = "message" + (kind ? " is-" + kind : "");
  }

  function pickMimeType() {
    if (!MediaRecorder.isTypeSupported) return "";
    for (var i = 0; i < MIME_TYPES.length; i++) if (MediaRecorder.isTypeSupported(MIME_TYPES[i])) return MIME_TYPES[i];
    return "";
  }

  function clipsCounted() {
    return S.clipsUsed + S.clips.filter(function (c) { return !c.announced; }).length;
  }

  function limitReached() {
    if (clipsCounted() < data.clips_max) return false;
    cameraMessage("This link takes at most " + data.clips_max + " clips, and you have used them all. Tap “Finish survey” when you are done, or ask " + data.company + " if you need to send more.", "error");
    return true;
  }

  function roomOrComplain() {
    var room = currentRoom();
    if (!room) {
      roomError("Type the name of the room first.");
      otherInput.focus();
    }
    return room;
  }

  async function getStream() {
    var video = { facingMode: "environment", width: { ideal: 1280 }, height: { ideal: 720 } };
    try {
      S.stream = await navigator.mediaDevices.getUserMedia({ video: video, audio: true });
    } catch (e) {
      if (e && e.name === "SecurityError") throw e;
      // No microphone, or the microphone refused: film without sound.
      S.stream = await navigator.mediaDevices.getUserMedia({ video: video, audio: false });
    }
    $("preview").srcObject = S.stream;
    $("viewer").hidden = false;
    return S.stream;
  }

  // releaseCamera turns the camera off between clips: the preview shows
  // only while recording, so what is on screen is what is being filmed.
  function releaseCamera() {
    if (S.stream) S.stream.getTracks().forEach(function (t) { t.onended = null; t.stop(); });
    S.stream = null;
    $("preview").srcObject = null;
    $("viewer").hidden = true;
  }

  function cameraUnavailable(err) {
    canRecord = false;
    $("start").hidden = true; $("stop").hidden = true;
    $("file").setAttribute("capture", "environment");
    $("or").hidden = true;
    $("file-label").className = "btn btn-primary";
    var why = err && (err.name === "NotAllowedError" || err.name === "SecurityError")
      ? "The camera was not allowed, so this page cannot record. "
      : "Your browser can’t record video on this page. ";
    cameraMessage(why + "Tap “Upload a video” below to film with your camera app instead.", "error");
  }

  async function startRecording() {
    if (S.rec || S.over) return;
    var room = roomOrComplain();
    if (!room || limitReached()) return;
    cameraMessage("");
    $("start").disabled = true;
    var stream;
    try {
      stream = await getStream();
    } catch (e) {
      $("start").disabled = false;
      cameraUnavailable(e);
      return;
    }
    var type = pickMimeType(), recorder;
    try {
      recorder = new MediaRecorder(stream, type ? { mimeType: type, videoBitsPerSecond: 2500000 } : {});
    } catch (e) {
      try { recorder = new MediaRecorder(stream); } catch (e2) { $("start").disabled = false; cameraUnavailable(e2); return; }
    }
    var rec = { recorder: recorder, chunks: [], bytes: 0, started: Date.now(), room: room, type: type, tick: 0, limit: 0, lock: null, note: "", frames: [], gap: data.frame_interval_ms };
    S.rec = rec;
    recorder.ondataavailable = function (ev) {
      if (!ev.data || !ev.data.size) return;
      rec.chunks.push(ev.data);
      rec.bytes += ev.data.size;
      if (rec.bytes > data.max_clip_bytes - 4 * 1048576 && recorder.state === "recording") {
        rec.note = "The clip reached the largest size we accept, so recording stopped. ";
        stopRecording();
      }
    };
    recorder.onstop = function () { recordingStopped(rec); };
    recorder.onerror = function () { rec.note = "Recording was interrupted. "; stopRecording(); };
    stream.getVideoTracks().forEach(function (t) { t.onended = function () { if (S.rec === rec) { rec.note = "The camera stopped. "; stopRecording(); } }; });
    recorder.start(1000);
    shoot(rec);
    rec.tick = setInterval(function () { showTimer(rec); }, 1000);
    rec.limit = setTimeout(function () { rec.note = "You reached " + data.max_clip_seconds / 60 + " minutes, so recording stopped. "; stopRecording(); }, data.max_clip_seconds * 1000);
    if (navigator.wakeLock) navigator.wakeLock.request("screen").then(function (l) { rec.lock = l; }, function () {});
    showTimer(rec);
    $("rec-badge").hidden = false;
    $("start").hidden = true; $("start").disabled = false;
    $("stop").hidden = false; $("stop").focus();
    roomSelect.disabled = true; otherInput.disabled = true;
  }

  function showTimer(rec) {
    var s = Math.min(Math.floor((Date.now() - rec.started) / 1000), data.max_clip_seconds);
    $("timer").textContent = String(Math.floor(s / 60)).padStart(2, "0") + ":" + String(s % 60).padStart(2, "0");
  }

  function stopRecording() {
    var rec = S.rec;
    if (!rec) return;
    clearInterval(rec.tick); clearTimeout(rec.limit);
    if (rec.recorder.state !== "inactive") rec.recorder.stop(); else recordingStopped(rec);
  }

  function recordingStopped(rec) {
    if (S.rec !== rec) return;
    S.rec = null;
    clearInterval(rec.tick); clearTimeout(rec.limit); clearTimeout(rec.shot);
    if (rec.lock) rec.lock.release().catch(function () {});
    $("rec-badge").hidden = true;
    $("stop").hidden = true; $("start").hidden = false;
    roomSelect.disabled = false; otherInput.disabled = false;
    releaseCamera();
    var type = (rec.recorder.mimeType || rec.type || "video/webm");
    var blob = new Blob(rec.chunks, { type: type });
    if (!blob.size) {
      cameraMessage(rec.note + "Nothing was recorded. Please try again.", "error");
    } else {
      var clip = addClip(blob, type, rec.room);
      clip.frames = rec.frames; clip.framing = rec.snap;
      cameraMessage(rec.note + "Clip saved. “Your clips” shows when it is sent and checked. Film more of the " + rec.room + ", or count its large items below.", "ok");
    }
    $("start").focus();
    S.waiters.splice(0).forEach(function (w) { w(); });
  }

  // ---- clips chosen from the phone -----------------------------------------

  function guessType(file) {
    if (/^video\//.test(file.type)) return file.type;
    var ext = (file.name.split(".").pop() || "").toLowerCase();
    return { mp4: "video/mp4", m4v: "video/mp4", mov: "video/quicktime", qt: "video/quicktime", webm: "video/webm" }[ext] || "";
  }

  // openVideo resolves a hidden <video> of file with its metadata, or
  // closed (duration NaN) when the browser cannot read it, or not in 4 s.
  function openVideo(file) {
    return new Promise(function (resolve) {
      var v = document.createElement("video"), timer = setTimeout(function () { closeVideo(v); resolve(v); }, 4000);
      v.preload = "metadata"; v.muted = true; v.setAttribute("playsinline", "");
      v.onloadedmetadata = v.onerror = function (e) { clearTimeout(timer); if (e.type === "error") closeVideo(v); resolve(v); };
      v.src = URL.createObjectURL(file);
    });
  }

  function closeVideo(v) { URL.revokeObjectURL(v.src); v.removeAttribute("src"); v.load(); }

  function megabytes(n) { return n >= 1048576 ? (n / 1048576).toFixed(n >= 10485760 ? 0 : 1) + " MB" : Math.max(1, Math.round(n / 1024)) + " KB"; }

  async function fileChosen() {
    var input = $("file"), file = input.files && input.files[0];
    input.value = "";
    if (!file || S.over) return;
    var room = roomOrComplain();
    if (!room || limitReached()) return;
    var type = guessType(file);
    if (!type) { cameraMessage("“" + file.name + "” is not a video we can use. Please choose an MP4, MOV or WebM video.", "error"); return; }
    if (file.size > data.max_clip_bytes) {
      cameraMessage("This video is " + megabytes(file.size) + ", larger than the " + megabytes(data.max_clip_bytes) + " we accept. Please film the room in shorter clips.", "error");
      return;
    }
    if (!file.size) { cameraMessage("This video is empty. Please choose another one.", "error"); return; }
    var v = await openVideo(file);
    if (isFinite(v.duration) && v.duration > data.max_clip_seconds + 1) {
      closeVideo(v);
      cameraMessage("This video is longer than " + data.max_clip_seconds / 60 + " minutes. Please choose a shorter one, or film the room in parts.", "error");
      return;
    }
    var clip = addClip(file, type, room);
    clip.frames = []; clip.framing = fileFrames(clip, v);
    cameraMessage("Video added. “Your clips” shows when it is sent and checked.", "ok");
  }

  // ---- the upload queue ----------------------------------------------------

  function uuid() {
    if (crypto.randomUUID) return crypto.randomUUID();
    var b = crypto.getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 15) | 64; b[8] = (b[8] & 63) | 128;
    var h = Array.prototype.map.call(b, function (x) { return (x + 256).toString(16).slice(1); }).join("");
    return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
  }

  function clipNumber(room) {
    return S.earlier.filter(function (c) { return c.room === room; }).length +
      S.clips.filter(function (c) { return c.room === room; }).length + 1;
  }

  function addClip(blob, type, room) {
    var clip = { id: uuid(), room: room, n: clipNumber(room), blob: blob, size: blob.size, type: type, state: "queued", progress: 0, error: "", announced: false, verdict: "sending", reason: "", at: new Date() };
    S.clips.push(clip);
    clip.el = clipElement(room + ", clip " + clip.n, megabytes(clip.size), "Upload of " + room + " clip " + clip.n, clip.at);
    clip.el.retry.addEventListener("click", function () { retry(clip); });
    renderClip(clip);
    pump();
    return clip;
  }

  // clipElement is a row of "Your clips": the room and clip, when it was
  // filmed (in the customer's time zone), its size and its state.
  function clipElement(title, size, progressLabel, at) {
    var li = document.createElement("li"); li.className = "clip";
    var head = document.createElement("div"); head.className = "clip-head";
    var t = document.createElement("span"); t.textContent = title;
    var s = document.createElement("span"); s.className = "clip-size"; s.textContent = size;
    head.append(t, s); li.append(head);
    if (at && !isNaN(at)) {
      var when = document.createElement("time"); when.className = "clip-time";
      when.dateTime = at.toISOString(); when.textContent = localTime(at);
      li.append(when);
    }
    var el = { li: li, bar: null, state: document.createElement("p"), retry: document.createElement("button") };
    if (progressLabel) {
      el.bar = document.createElement("progress"); el.bar.max = 100; el.bar.value = 0;
      el.bar.setAttribute("aria-label", progressLabel);
      li.append(el.bar);
    }
    el.state.className = "clip-state";
    el.retry.type = "button"; el.retry.className = "btn btn-secondary"; el.retry.textContent = "Retry upload"; el.retry.hidden = true;
    li.append(el.state, el.retry);
    $("clips").append(li);
    $("clips-box").hidden = false;
    return el;
  }

  // verdictText is what a sent clip's row says: the server's verdict,
  // and for a clip that could not be used, why and what to do.
  function verdictText(c) {
    return {
      sending: "Sent. Checking it…",
      received: "Received. Checking it…",
      checked: "Checked: we can use this clip.",
      unusable: "Could not be used. " + (c.reason || "") + " Please film the " + c.room + " again."
    }[c.verdict] || "Sent";
  }

  function renderClip(clip) {
    var el = clip.el, text = {
      queued: "Waiting to send…",
      announcing: "Starting to send…",
      uploading: "Sending… " + Math.floor(clip.progress) + "%",
      done: verdictText(clip),
      failed: "Not sent. " + clip.error
    }[clip.state];
    el.state.textContent = text;
    el.bar.value = clip.state === "done" ? 100 : clip.state === "failed" ? 0 : clip.progress;
    el.retry.hidden = clip.state !== "failed";
    var bad = clip.state === "failed" || (clip.state === "done" && clip.verdict === "unusable");
    el.li.className = "clip" + (bad ? " is-failed" : clip.state === "done" && clip.verdict === "checked" ? " is-done" : "");
    $("clips-used").textContent = String(Math.min(clipsCounted(), data.clips_max));
    finishProgress();
  }

  function pending() { return S.clips.filter(function (c) { return c.state === "queued" || c.state === "announcing" || c.state === "uploading"; }); }
  function failed() { return S.clips.filter(function (c) { return c.state === "failed"; }); }

  function pump() {
    while (S.active < UPLOADS_AT_ONCE && !S.over) {
      var next = S.clips.find(function (c) { return c.state === "queued"; });
      if (!next) break;
      upload(next);
    }
    if (!pending().length) S.waiters.splice(0).forEach(function (w) { w(); });
  }

  async function upload(clip) {
    S.active++;
    clip.state = "announcing"; clip.progress = 0; clip.error = ""; renderClip(clip);
    try {
      var r = await api("POST", "/clips", { clip_id: clip.id, room: clip.room, size: clip.size, content_type: clip.type });
      clip.announced = true;
      if (r.clips_used) S.clipsUsed = Math.max(S.clipsUsed, r.clips_used);
      clip.state = "uploading"; renderClip(clip);
      await put(clip, r.upload || {});
      clip.state = "done"; clip.blob = null;
      S.sending.push(sendFrames(clip));
      pollSoon();
    } catch (e) {
      clip.state = "failed";
      clip.error = e && e.message ? e.message : "The upload did not finish.";
      clip.offline = !!(e && e.status === 0);
    } finally {
      S.active--;
      if (!S.over) renderClip(clip);
      pump();
    }
  }

  function put(clip, up) {
    return new Promise(function (resolve, reject) {
      var x = new XMLHttpRequest();
      x.open(up.method || "PUT", up.url);
      var headers = up.headers || {};
      Object.keys(headers).forEach(function (k) {
        if (!FORBIDDEN_HEADERS[k.toLowerCase()]) x.setRequestHeader(k, headers[k]);
      });
      x.upload.onprogress = function (e) {
        if (e.lengthComputable && e.total) { clip.progress = Math.min(99, 100 * e.loaded / e.total); renderClip(clip); }
      };
      x.onload = function () {
        // 412: the URL only creates (If-None-Match: *), and the clip's own
        // key already holds it: an earlier attempt arrived whole.
        if ((x.status >= 200 && x.status < 300) || x.status === 412) resolve();
        else reject(new ApiError(x.status, "upload", x.status === 403 ? "The upload link ran out before the video was sent." : "The upload was refused (error " + x.status + ")."));
      };
      x.onerror = x.ontimeout = function () { reject(new ApiError(0, "network", "The connection dropped while sending.")); };
      x.onabort = function () { reject(new ApiError(0, "abort", "Sending was stopped.")); };
      x.send(clip.blob);
    });
  }

  // retry sends a failed clip again: the same clip_id gets a fresh upload
  // URL from the server, so nothing is filmed twice or counted twice.
  function retry(clip) {
    if (clip.state !== "failed" || S.over) return;
    clip.state = "queued"; renderClip(clip);
    pump();
  }

  function showEarlierClips() {
    S.earlier.forEach(function (c) {
      c.n = S.earlier.filter(function (e) { return e.room === c.room && S.earlier.indexOf(e) <= S.earlier.indexOf(c); }).length;
      c.el = clipElement(c.room + ", clip " + c.n + " (sent earlier)", "", "", new Date(c.at));
      renderEarlier(c);
    });
    pollSoon();
  }

  function renderEarlier(c) {
    c.el.state.textContent = verdictText(c);
    c.el.li.className = "clip" + (c.verdict === "unusable" ? " is-failed" : c.verdict === "checked" ? " is-done" : "");
  }

  // welcomeBack says at the top what an earlier visit already sent.
  function welcomeBack() {
    var n = S.earlier.length, counted = checklistBody().rooms.reduce(function (a, r) { return a + r.items.length; }, 0);
    if (!n && !counted) return;
    var bad = S.earlier.filter(function (c) { return c.verdict === "unusable"; });
    var unique = function (r, i, a) { return a.indexOf(r) === i; };
    var done = [];
    if (n) done.push("sent " + (n === 1 ? "1 clip" : n + " clips") + " (" + S.earlier.map(function (c) { return c.room; }).filter(unique).join(", ") + ")");
    if (counted) done.push("counted " + (counted === 1 ? "1 kind of item" : counted + " kinds of items"));
    var text = "Welcome back. You already " + done.join(" and ") + ". ";
    if (bad.length) {
      text += (bad.length === 1 ? "1 clip" : bad.length + " clips") + " could not be used: please film the " +
        bad.map(function (c) { return c.room; }).filter(unique).join(", ") + " again. ";
    }
    $("welcome").textContent = text + "Carry on where you left off; your clips are listed under “Your clips”.";
    $("welcome").hidden = false;
  }

  // ---- verdicts ------------------------------------------------------------
  // The processor checks each clip after it arrives; the page asks for the
  // verdicts every few seconds while a sent clip has none yet.

  function undecided() {
    return S.clips.filter(function (c) { return c.state === "done" && (c.verdict === "sending" || c.verdict === "received"); })
      .concat(S.earlier.filter(function (c) { return c.verdict === "sending" || c.verdict === "received"; }));
  }

  function pollSoon() {
    if (S.pollTimer || S.over || !undecided().length || S.polls >= 300) return;
    S.pollTimer = setTimeout(poll, S.polls < 5 ? 1500 : 3000);
  }

  async function poll() {
    S.polls++;
    try {
      var r = await api("GET", "/clips", null, true), byID = {};
      (r.clips || []).forEach(function (c) { byID[c.clip_id] = c; });
      S.clips.concat(S.earlier).forEach(function (c) {
        var v = byID[c.id];
        if (!v || (v.verdict === "sending" && c.verdict !== "sending")) return;
        c.verdict = v.verdict; c.reason = v.reason || "";
        if (c.state) { if (c.state === "done") renderClip(c); } else renderEarlier(c);
      });
      if (typeof r.clips_used === "number") S.clipsUsed = r.clips_used;
      $("clips-used").textContent = String(Math.min(clipsCounted(), data.clips_max));
    } catch (e) {
      // A poll that fails is tried again; the clips' rows keep their state.
    } finally {
      S.pollTimer = 0;
      pollSoon();
    }
  }

  // ---- frames --------------------------------------------------------------
  // JPEG stills of each clip for the inventory's detector. They never hold
  // up a clip or show anything: a clip without frames is still a clip.

  // frameCap is how many frames own may keep: the survey's room less what
  // other clips hold unannounced.
  function frameCap(own) {
    var n = data.frames_max - S.framesUsed;
    S.clips.concat(S.rec || []).forEach(function (c) { if (c !== own && c.frames) n -= c.frames.length; });
    return Math.min(data.frames_per_clip, n);
  }

  // snap resolves what v shows at offset ms as a JPEG (its blob is not
  // enumerable, so JSON leaves it out), or null.
  function snap(v, offset) {
    var k = Math.min(1, Math.min(1280, data.max_frame_side) / Math.max(v.videoWidth, v.videoHeight)),
      w = Math.round(v.videoWidth * k), h = Math.round(v.videoHeight * k), c = document.createElement("canvas");
    if (v.readyState < 2 || !(Math.min(w, h) >= 64)) return Promise.resolve(null);
    c.width = w; c.height = h;
    c.getContext("2d").drawImage(v, 0, 0, w, h);
    return new Promise(function (resolve) {
      c.toBlob(function (b) {
        resolve(b && b.size <= data.max_frame_bytes ? Object.defineProperty({ offset_ms: offset, size: b.size, width: w, height: h }, "blob", { value: b }) : null);
      }, "image/jpeg", 0.8);
    });
  }

  // shoot snaps the preview half a gap in, then a gap after the last frame
  // kept; over the cap it drops every other frame and doubles the gap.
  function shoot(rec) {
    var fr = rec.frames, last = fr.length ? fr[fr.length - 1].offset_ms : -rec.gap / 2;
    rec.shot = setTimeout(function () {
      var cap = frameCap(rec);
      if (!(cap > 0) || S.rec !== rec) return;
      rec.snap = snap($("preview"), Date.now() - rec.started).then(function (f) {
        if (f && fr.push(f) > cap) { for (var i = 1; i < fr.length; i++) fr.splice(i, 1); rec.gap *= 2; }
        if (S.rec === rec) shoot(rec);
      });
    }, Math.max(500, last + rec.gap - (Date.now() - rec.started)));
  }

  // fileFrames seeks a picked video to up to cap times spread over it, one
  // a slot, until a seek fails or takes 5 s.
  async function fileFrames(clip, v) {
    var ms = Math.floor(v.duration * 1000), cap = frameCap(clip),
      n = Math.max(1, Math.min(Math.floor(ms / data.frame_interval_ms), cap)), step = Math.floor(ms / n);
    for (var i = 0; i < n && cap > 0 && isFinite(step) && v.videoWidth; i++) {
      var at = Math.floor(step / 2) + i * step, f;
      if (!(await new Promise(function (resolve) {
        setTimeout(resolve, 5000, false);
        v.onseeked = v.onerror = function (e) { resolve(e.type === "seeked"); };
        v.currentTime = at / 1000;
      }))) break;
      if ((f = await snap(v, at))) clip.frames.push(f);
    }
    closeVideo(v);
  }

  // sendFrames announces a sent clip's frames and puts them, two at a time,
  // each tried twice. It logs failures without URLs (they hold the token).
  async function sendFrames(clip) {
    try {
      await clip.framing;
      var frames = clip.frames || [];
      if (!frames.length || S.over || S.framesUsed >= data.frames_max) return;
      var r = await api("POST", "/frames", { clip_id: clip.id, frames: frames }, true);
      S.framesUsed = Math.max(S.framesUsed, r.frames_used || 0);
      clip.frames = null;
      // In the order sent; one already received has no upload.
      var todo = frames.filter(function (f, i) { return (f.up = r.frames[i] && r.frames[i].upload); });
      var worker = async function () {
        for (var f; (f = todo.shift());) if (!(await putFrame(f) || await putFrame(f))) console.warn("a frame of clip " + clip.id + " was not sent");
      };
      await Promise.all([worker(), worker()]);
    } catch (e) {
      if (e.details && e.details.max_frames) S.framesUsed = data.frames_max; // the survey is full
      console.warn("frames of clip " + clip.id + " not sent: " + (e.status || e.message));
    } finally {
      clip.frames = null;
    }
  }

  // putFrame resolves true once the frame is stored: 412 says an earlier
  // attempt already stored it (the URL only creates).
  function putFrame(f) {
    return fetch(f.up.url, { method: f.up.method || "PUT", headers: f.up.headers, body: f.blob })
      .then(function (r) { return r.ok || r.status === 412; }, function () { return false; });
  }

  // ---- checklist -------------------------------------------------------------

  var inputs = Array.prototype.slice.call(document.querySelectorAll("#checklist input.count"));
  // Each row's home is its group's list; placeRows lends some to the top list.
  var rows = Array.prototype.slice.call(document.querySelectorAll("#checklist li.item")), rowByKey = {};
  rows.forEach(function (li) { li.home = li.parentNode; rowByKey[li.querySelector("input.count").dataset.key] = li; });

  function loadChecklist(room) {
    if (S.room !== room) S.showAll = false;
    S.room = room;
    var counts = S.checklist[room] || {};
    inputs.forEach(function (i) {
      var n = counts[i.dataset.key] || 0;
      i.value = String(n);
      i.classList.toggle("has-value", n > 0);
      i.disabled = !room;
    });
    document.querySelectorAll(".item .step-btn").forEach(function (b) { b.disabled = !room; });
    placeRows();
    document.querySelectorAll("#checklist details").forEach(function (d) {
      var hint = (data.group_rooms[d.dataset.group] || []).indexOf(room) >= 0;
      d.open = hint || groupTotal(d) > 0;
    });
    var anyOpen = document.querySelector("#checklist details[open]");
    if (!anyOpen && document.querySelector("#checklist details")) document.querySelector("#checklist details").open = true;
    groupCounts();
    showGroups();
  }

  // placeRows puts the room's likely items (data.room_items), then any other
  // it has counted, in the top list, and every other row in its group, in
  // cube sheet order: the step fits a phone, and nothing counted is hidden.
  function placeRows() {
    var counts = S.checklist[S.room] || {}, top = $("top-items");
    var counted = Object.keys(counts).filter(function (k) { return counts[k] > 0; });
    rows.forEach(function (li) { li.home.appendChild(li); });
    (data.room_items[S.room] || []).concat(counted).forEach(function (k) {
      if (rowByKey[k] && rowByKey[k].parentNode !== top) top.appendChild(rowByKey[k]);
    });
  }

  // showGroups shows the top list alone; "Show more items" adds the groups
  // holding every other item. A room without a top list shows the groups.
  function showGroups() {
    var shown = $("top-items").children.length, compact = !S.showAll && shown > 0;
    $("checklist").hidden = compact;
    document.querySelectorAll("#checklist details").forEach(function (d) { d.hidden = !d.querySelector("li.item"); });
    var more = $("more-items"), rest = rows.length - shown;
    more.hidden = !compact;
    more.setAttribute("aria-expanded", String(!compact));
    more.textContent = "Show more items (" + rest + " more)";
  }

  function groupTotal(d) {
    var n = 0;
    d.querySelectorAll("input.count").forEach(function (i) { n += parseInt(i.value, 10) || 0; });
    return n;
  }

  function groupCounts() {
    document.querySelectorAll("#checklist details").forEach(function (d) {
      var n = groupTotal(d);
      d.querySelector(".group-count").textContent = n ? String(n) : "";
    });
  }

  function setCount(input, n) {
    if (!S.room) return;
    n = Math.max(0, Math.min(99, Math.floor(n) || 0));
    if (String(n) !== input.value) input.value = String(n);
    input.classList.toggle("has-value", n > 0);
    var counts = S.checklist[S.room] || (S.checklist[S.room] = {});
    if (n) counts[input.dataset.key] = n; else delete counts[input.dataset.key];
    groupCounts();
    countHint();
    S.dirty = true;
    $("save-status").textContent = "";
    clearTimeout(S.saveTimer);
    S.saveTimer = setTimeout(save, SAVE_DELAY_MS);
  }

  // counted says whether any item of any room is counted: the recommended
  // estimate prices the inventory, and an empty one has none.
  function counted() { return checklistBody().rooms.length > 0; }

  // countHint warns, above "Finish survey", while nothing is counted: the
  // estimate then rests on what the videos show, and may not come.
  function countHint() {
    $("count-hint").textContent = counted() ? "" : "You have not counted any items yet. " + data.company +
      " prices your move from your items: count the large items in each room (step 3). Without counts, we list what we recognise in your videos; if we cannot, " +
      data.company + " will contact you about your estimate.";
  }

  function checklistBody() {
    var rooms = [];
    Object.keys(S.checklist).forEach(function (name) {
      var items = Object.keys(S.checklist[name]).filter(function (k) { return S.checklist[name][k] > 0; })
        .map(function (k) { return { key: k, count: S.checklist[name][k] }; });
      if (items.length) rooms.push({ name: name, items: items });
    });
    return { rooms: rooms };
  }

  // save sends the whole checklist; a change made while a save is on its way
  // is sent by the next one. It resolves true once the server has the
  // latest counts.
  function save() {
    clearTimeout(S.saveTimer);
    if (S.saving) return S.saving.then(function () { return S.dirty ? save() : true; });
    if (!S.dirty) return Promise.resolve(true);
    S.dirty = false;
    $("save-status").textContent = "Saving…";
    S.saving = api("PUT", "/checklist", checklistBody()).then(function () {
      $("save-status").textContent = "Saved";
      return true;
    }, function (e) {
      S.dirty = true;
      if (!S.over) $("save-status").textContent = "Not saved yet: " + e.message;
      return false;
    }).finally(function () { S.saving = null; });
    return S.saving;
  }

  // ---- finishing ---------------------------------------------------------

  function finishStatus(text, kind) {
    var m = $("finish-status");
    m.textContent = text || "";
    m.className = "message" + (kind ? " is-" + kind : "");
  }

  function finishProgress() {
    if (!S.finishing) return;
    var all = S.clips.filter(function (c) { return c.state !== "failed"; });
    var done = all.filter(function (c) { return c.state === "done"; }).length;
    if (done < all.length) {
      var bytes = 0, sent = 0;
      all.forEach(function (c) { bytes += c.size; sent += c.size * (c.state === "done" ? 100 : c.progress) / 100; });
      finishStatus("Sending your videos: " + done + " of " + all.length + " sent (" + Math.floor(100 * sent / bytes) + "%). Please keep this page open.");
    }
  }

  function until(cond) {
    return new Promise(function (resolve) {
      var check = function () { if (cond()) resolve(); else S.waiters.push(check); };
      check();
    });
  }

  async function finish(force) {
    if (S.finishing || S.over) return;
    $("finish-choices").hidden = true;
    if (S.rec) { stopRecording(); await until(function () { return !S.rec; }); }
    if (!force && !hopeful().length) {
      var sent = S.clips.length + S.earlier.length;
      finishStatus((sent ? "None of your videos could be used, so " + data.company + " can’t send an estimate from them. Please film a room again. "
        : "You have not sent any video yet. " + data.company + " needs a video of your home to estimate your move. ") +
        "If you finish now, " + data.company + " will contact you about your estimate instead.", "error");
      $("retry-failed").hidden = true;
      $("finish-anyway").textContent = "Finish without video";
      $("finish-choices").hidden = false;
      return;
    }
    S.finishing = true;
    $("finish").disabled = true;
    finishProgress();
    await until(function () { return !pending().length; });
    var bad = failed();
    if (bad.length && !force) {
      S.finishing = false; $("finish").disabled = false;
      finishStatus((bad.length === 1 ? "1 video was" : bad.length + " videos were") + " not sent. Try again, or finish without " + (bad.length === 1 ? "it." : "them."), "error");
      $("retry-failed").hidden = false;
      $("finish-anyway").textContent = "Finish without " + (bad.length === 1 ? "it" : "them");
      $("finish-choices").hidden = false;
      return;
    }
    finishStatus("Saving your item counts…");
    if (!(await save()) && !S.over) {
      S.finishing = false; $("finish").disabled = false;
      finishStatus("Your item counts could not be saved. Check your connection and tap “Finish survey” again.", "error");
      return;
    }
    finishStatus("Finishing…");
    // The survey settles once its announced frames arrived: wait a little.
    await Promise.race([Promise.all(S.sending), sleep(20000)]);
    try {
      await api("POST", "/finish", {});
      showDone();
    } catch (e) {
      if (S.over) return;
      S.finishing = false; $("finish").disabled = false;
      finishStatus(e.message + " Then tap “Finish survey” again.", "error");
    }
  }

  function end(section) {
    if (S.over) return;
    S.over = true;
    clearTimeout(S.saveTimer);
    if (S.rec) { clearInterval(S.rec.tick); clearTimeout(S.rec.limit); try { S.rec.recorder.stop(); } catch (e) { /* already stopped */ } S.rec = null; }
    releaseCamera();
    $("survey").hidden = true;
    $(section).hidden = false;
    window.scrollTo(0, 0);
    $(section).focus();
  }

  // hopeful are the clips that may still count: not refused by the
  // processor (one not sent yet may be retried).
  function hopeful() {
    return S.clips.concat(S.earlier).filter(function (c) { return c.verdict !== "unusable"; });
  }

  // showDone says what happens next: an estimate once a video is checked,
  // or, with no video that can be used, a call from the mover.
  function showDone() {
    var coming = S.clips.concat(S.earlier).some(function (c) { return c.verdict !== "unusable" && (!c.state || c.state === "done"); });
    if (!coming) {
      $("done-lead").textContent = "Thanks! We did not get a video we can use, so " + data.company + " will contact you about your estimate.";
    } else if (!counted()) {
      $("done-next").textContent = "What happens next: you did not count any items, so we list what we recognise in your videos. If we can, " +
        data.company + " sends your estimate; if we cannot, " + data.company + " will contact you about it instead. There is nothing more to do. You can close this page.";
    } else {
      $("done-next").textContent = "What happens next: we check your videos, then " + data.company + " sends your estimate. There is nothing more to do. You can close this page.";
    }
    end("done");
  }
  function linkDead() { end("dead"); }

  // ---- wiring ----------------------------------------------------------------

  function init() {
    Object.keys(data.checklist || {}).forEach(function (room) {
      var name = canonicalRoom(room);
      if (data.rooms.indexOf(name) < 0) addRoomOption(name);
      S.checklist[name] = Object.assign({}, data.checklist[room]);
    });
    data.clips.forEach(function (c) { if (data.rooms.indexOf(c.room) < 0) addRoomOption(c.room); });
    if (canRecord) {
      // The camera records in the page, so the picker is for videos the
      // phone already holds: without capture it offers the gallery too.
      $("file").removeAttribute("capture");
    } else {
      cameraUnavailable(null);
    }
    showEarlierClips();
    welcomeBack();
    countHint();
    $("clips-used").textContent = String(Math.min(S.clipsUsed, data.clips_max));

    roomSelect.addEventListener("change", roomChanged);
    otherInput.addEventListener("input", function () { roomError(""); showRoomName(); });
    otherInput.addEventListener("change", roomChanged);
    $("next-room").addEventListener("click", function () {
      var next = nextRoom();
      if (!next) return;
      roomSelect.value = next; roomChanged();
      $("room-title").scrollIntoView({ behavior: "smooth", block: "start" });
    });
    $("more-items").addEventListener("click", function () {
      S.showAll = true; showGroups();
      var first = document.querySelector("#checklist details:not([open])");
      if (first) first.querySelector("summary").focus();
    });
    $("start").addEventListener("click", startRecording);
    $("stop").addEventListener("click", stopRecording);
    $("file").addEventListener("change", fileChosen);
    inputs.forEach(function (i) {
      i.addEventListener("input", function () { if (i.value !== "") setCount(i, parseInt(i.value, 10)); });
      i.addEventListener("change", function () { setCount(i, parseInt(i.value, 10)); });
    });
    document.querySelectorAll(".item .step-btn").forEach(function (b) {
      b.addEventListener("click", function () {
        var i = $(b.getAttribute("aria-controls"));
        setCount(i, (parseInt(i.value, 10) || 0) + parseInt(b.dataset.step, 10));
      });
    });
    $("finish").addEventListener("click", function () { finish(false); });
    $("finish-anyway").addEventListener("click", function () { finish(true); });
    $("retry-failed").addEventListener("click", function () {
      $("finish-choices").hidden = true; finishStatus("");
      failed().forEach(retry);
      finish(false);
    });
    var online = function () { $("offline").hidden = navigator.onLine; };
    window.addEventListener("offline", online);
    window.addEventListener("online", function () {
      online();
      failed().filter(function (c) { return c.offline; }).forEach(retry);
      if (S.dirty) save();
    });
    online();
    window.addEventListener("beforeunload", function (e) {
      if (!S.over && (S.rec || pending().length || S.dirty || S.saving)) { e.preventDefault(); e.returnValue = ""; }
    });
    window.addEventListener("pagehide", function () { if (S.dirty && !S.over) save(); });
    roomChanged();
  }

  init();
})();
