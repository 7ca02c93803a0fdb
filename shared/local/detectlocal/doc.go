// Package detectlocal runs the local stand-in for Amazon Rekognition's
// DetectLabels: a real object detector, CenterNet trained on the 80 COCO
// classes (couch, bed, chair, dining table, tv, refrigerator, ...), in a
// Node.js sidecar on loopback, for tests and the local development stack.
// [Client] implements inventory.Detector over it; nothing here enters a
// Lambda binary (shared/checks/architecture checks that no function links it).
//
// # Install
//
// The model and its runtime are npm packages pinned, with their sha512
// integrity, in scripts/detector/package-lock.json: @vladmandic/human
// 3.3.6 (MIT), which ships the CenterNet weights (models/centernet.json
// and .bin, 4 MB), TensorFlow.js core, converter and WebAssembly backend
// 4.22.0 (Apache-2.0), and jpeg-js 0.4.4 (BSD-3-Clause). [Install] runs
// scripts/install-detector.sh, which installs them with `npm ci
// --ignore-scripts` into <repo>/.cache/detector (git-ignored), or
// $DETECTOR_DIR when that is set: once, in about 5 s (40 MB from the
// registry, or none from npm's cache); afterwards it returns in 0.2 s.
// Nothing is downloaded when the detector runs. It needs node (18+; tested
// with 20) and npm on PATH.
//
// # The sidecar
//
// [Start] runs `node scripts/detector/server.mjs` on a free port of
// 127.0.0.1 and returns once GET /healthz answers 200, which it does once
// the model is loaded and has run once (about a second here). The sidecar
// reads the weights from disk through a tfjs load router for file:// URLs,
// decodes each JPEG with jpeg-js, detects frames one at a time in arrival
// order (at most 16 waiting; more are answered 503) and answers POST
// /detect with {"detections":[{"label","score","box":[x,y,w,h]}],"ms"},
// boxes in fractions of the frame. A body that is not a decodable JPEG is
// answered 400, one over [MaxFrameBytes] 413. Like the other local servers
// (shared/local/childproc) it runs in its own process group and, on Linux, dies
// with the process that started it.
//
// # Labels and scores
//
// Labels are CenterNet's COCO class names, lower case, as the model says
// them ("couch", "potted plant", "dining table", "tv"); inventory.Labels
// maps them for the detector named "centernet-coco". Confidence is the
// model's score, which human truncates to two decimals; detections under
// 0.2 are dropped, and overlapping boxes are suppressed across classes
// (IoU 0.4). CenterNet is much weaker than Rekognition. On the test frames
// (testdata/README.md) it scores a refrigerator 0.68, a tv 0.54, a couch
// 0.50, a bed 0.49 and wooden chairs 0.21-0.31; on unusual pictures a
// detection of the wrong class is common. Its detections are suggestions,
// never facts.
//
// # Speed
//
// About 0.15-0.2 s per 640x480 frame on this project's machines (2 cores;
// median of 12 frames, TestDetectionTimePerFrame and BenchmarkDetect),
// 0.3-0.4 s for 1024x819; frames are answered one at a time.
//
// Test packages use [ForTests] from TestMain: the running sidecar of
// `make dev` when DETECTOR_URL is set, otherwise one sidecar for the
// whole test binary.
package detectlocal
