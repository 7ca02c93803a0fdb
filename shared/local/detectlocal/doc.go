// Package detectlocal runs the local stand-in for Amazon Rekognition's
// DetectLabels: CenterNet on the 80 COCO classes, in a Node.js sidecar on
// loopback, for tests and the local development stack. [Client] implements
// inventory.Detector over it; nothing here enters a Lambda binary.
//
// [Install] installs the pinned npm packages (scripts/install-detector.sh)
// into <repo>/.cache/detector, or $DETECTOR_DIR, and returns at once when
// they are there; it needs node (18+) and npm on PATH. [Start] runs
// scripts/detector/server.mjs on a free port of 127.0.0.1 and returns once
// the model has loaded; the sidecar dies with the process that started it.
// Test packages use [ForTests] from TestMain: make dev's sidecar when
// DETECTOR_URL is set, otherwise one sidecar for the whole test binary.
//
// The sidecar answers POST /detect with {"detections":[{"label","score",
// "box":[x,y,w,h]}],"ms"}, boxes in fractions of the frame, one frame at a
// time; a body that is not a decodable JPEG answers 400, one over
// [MaxFrameBytes] 413, a full queue 503. Labels are COCO class names
// (inventory.Labels maps them for the detector [Name]); treat detections
// as suggestions, never facts.
//
// Design and how it differs from Rekognition: docs/LOCAL.md; scores and
// speed: docs/INVENTORY.md.
package detectlocal
