// The local object detector: CenterNet (80 COCO classes) from
// @vladmandic/human, run by TensorFlow.js on its WebAssembly backend, behind
// a loopback HTTP server. shared/local/detectlocal starts it for tests and the
// local stack; in AWS, Amazon Rekognition does this job.
//
//   node server.mjs --modules DIR [--port N] [--max-bytes N] [--queue N]
//                   [--min-score S]
//
// DIR is the node_modules folder scripts/install-detector.sh filled from
// package-lock.json beside this file. The model's weights ship in the human
// package and are read from disk (no download, no model server): a load
// router answers the file:// URLs human asks tfjs for.
//
//   GET  /healthz  200 {"status":"ok","queued":N,"tensors":N,...} once the
//                  model is loaded (tensors: those alive, for leak checks);
//                  503 before
//   POST /detect   body: one JPEG (Content-Type is not checked), at most
//                  --max-bytes; 200 {"detections":[{"label":"couch",
//                  "score":0.81,"box":[x,y,w,h]}],"ms":N,"width":W,"height":H}
//                  with box in fractions of the frame; 400 for a body that is
//                  not a decodable JPEG, 413 for one too large, 503 when
//                  --queue frames already wait.
//
// Frames are detected one at a time, in arrival order, so memory stays
// bounded by the frames waiting (at most --queue bodies of --max-bytes).
// It listens on 127.0.0.1 only and prints one line,
// "detector ready http://127.0.0.1:PORT ...", on stdout once /healthz
// answers 200; errors go to stderr.
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    modules: { type: 'string' },
    port: { type: 'string', default: '0' },
    'max-bytes': { type: 'string', default: String(5 << 20) },
    queue: { type: 'string', default: '16' },
    'min-score': { type: 'string', default: '0.2' },
  },
});
if (!args.modules) fail('--modules DIR (the installed node_modules) is required');
const port = intArg('port', 0, 65535);
const maxBytes = intArg('max-bytes', 1, 64 << 20);
const maxQueue = intArg('queue', 1, 1024);
const minScore = Number(args['min-score']);
if (!(minScore >= 0 && minScore <= 1)) fail('--min-score must be from 0 to 1');

// The largest frame decoded, in megapixels: a frame from the capture page
// is about 1 MP, 4K UHD 8.3 MP. A 16 MP frame takes about 450 MB on its way
// to the model (RGB bytes, then int32 and float32 tensors).
const maxMegapixels = 16;

// Everything is loaded from the install, not from beside this file.
const modulesDir = path.resolve(args.modules);
const require = createRequire(path.join(modulesDir, 'noop.js'));
const tf = require('@tensorflow/tfjs-core');
require('@tensorflow/tfjs-backend-wasm');
// human's "exports" offer Node only dist/human.node.js, which needs
// tfjs-node; its WebAssembly build is required by path.
const humanDir = path.join(modulesDir, '@vladmandic', 'human');
const { Human } = require(path.join(humanDir, 'dist', 'human.node-wasm.js'));
const jpeg = require('jpeg-js');
const wasmDir = path.join(modulesDir, '@tensorflow', 'tfjs-backend-wasm', 'dist');

tf.io.registerLoadRouter(fileRouter);

const human = new Human({
  backend: 'wasm',
  wasmPath: wasmDir + path.sep,
  modelBasePath: pathToFileURL(path.join(humanDir, 'models') + path.sep).href,
  cacheModels: false,
  // Every frame is a new picture: never reuse the last frame's results.
  cacheSensitivity: 0,
  warmup: 'none',
  debug: false,
  filter: { enabled: false },
  face: { enabled: false },
  body: { enabled: false },
  hand: { enabled: false },
  gesture: { enabled: false },
  segmentation: { enabled: false },
  object: {
    enabled: true,
    modelPath: 'centernet.json',
    minConfidence: minScore,
    iouThreshold: 0.4,
    maxDetected: 50,
    skipFrames: 0,
    skipTime: 0,
  },
});

let loaded = false;
let queued = 0; // frames accepted and not yet answered
let tail = Promise.resolve(); // the last frame's turn

const server = http.createServer(handle);
server.requestTimeout = 60_000;
server.headersTimeout = 10_000;
server.on('error', (err) => fail(`listen on 127.0.0.1:${port}: ${err.message}`));
server.listen(port, '127.0.0.1', async () => {
  const started = performance.now();
  try {
    await human.load();
    await human.init();
    if (!human.models.loaded().includes('centernet')) throw new Error('centernet did not load (see the messages above)');
    // A first run compiles the graph; do it before saying ready.
    const blank = tf.zeros([64, 64, 3], 'int32');
    try {
      await detect(blank);
    } finally {
      tf.dispose(blank);
    }
  } catch (err) {
    fail(`load the model: ${err.stack || err}`);
  }
  loaded = true;
  const { port: bound } = server.address();
  console.log(`detector ready http://127.0.0.1:${bound} model=centernet backend=${tf.getBackend()} human=${human.version} tfjs=${tf.version_core} load_ms=${Math.round(performance.now() - started)}`);
});

function handle(req, res) {
  const url = new URL(req.url, 'http://127.0.0.1');
  if (url.pathname === '/healthz') {
    if (req.method !== 'GET' && req.method !== 'HEAD') return reply(res, 405, { error: 'use GET' }, { Allow: 'GET, HEAD' });
    if (!loaded) return reply(res, 503, { status: 'loading' });
    return reply(res, 200, { status: 'ok', model: 'centernet', backend: tf.getBackend(), queued, tensors: tf.memory().numTensors });
  }
  if (url.pathname !== '/detect') return reply(res, 404, { error: 'not found' });
  if (req.method !== 'POST') return reply(res, 405, { error: 'use POST' }, { Allow: 'POST' });
  if (!loaded) return reply(res, 503, { error: 'model is loading' });
  const declared = Number(req.headers['content-length']);
  if (declared > maxBytes) return refuseBody(req, res, 413, `frame of ${declared} bytes; the limit is ${maxBytes}`);
  if (queued >= maxQueue) return refuseBody(req, res, 503, `${queued} frames are waiting; try again`, { 'Retry-After': '1' });
  queued++;
  readBody(req)
    .then((body) => {
      if (body === null) return reply(res, 413, { error: `frame larger than ${maxBytes} bytes` });
      return inTurn(() => detectFrame(body, res));
    })
    .catch((err) => {
      if (err instanceof ClientGone) return; // nobody to answer
      reply(res, 500, { error: 'internal error' });
      console.error('detect:', err);
    })
    .finally(() => queued--);
}

// readBody returns the request's body, or null when it passes maxBytes;
// the rest of a body that is too large is read and dropped, so the client
// gets the answer instead of a connection reset while it still sends.
function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
      else chunks.length = 0;
    });
    req.on('end', () => resolve(size > maxBytes ? null : Buffer.concat(chunks, size)));
    req.on('error', () => reject(new ClientGone()));
    req.on('close', () => {
      if (!req.complete) reject(new ClientGone());
    });
  });
}

// ClientGone is the error of a body whose connection closed before its end.
class ClientGone extends Error {}

// inTurn runs fn after every frame accepted before it has been answered.
function inTurn(fn) {
  const turn = tail.then(fn);
  tail = turn.catch(() => {});
  return turn;
}

async function detectFrame(body, res) {
  if (res.destroyed) return; // the client gave up while the frame waited
  const started = performance.now();
  let image;
  try {
    image = decodeJPEG(body);
  } catch (err) {
    return reply(res, 400, { error: `not a JPEG the detector reads: ${err.message}` });
  }
  const pixels = tf.tensor3d(image.data, [image.height, image.width, 3], 'int32');
  let objects;
  try {
    objects = await detect(pixels);
  } finally {
    tf.dispose(pixels);
  }
  const detections = objects.map((o) => ({
    label: o.label,
    score: o.score,
    box: clampBox(o.boxRaw),
  }));
  reply(res, 200, { detections, ms: Math.round(performance.now() - started), width: image.width, height: image.height });
}

async function detect(pixels) {
  const result = await human.detect(pixels);
  if (result.error) throw new Error(`human: ${result.error}`);
  return result.object;
}

// decodeJPEG checks the JPEG signature, then decodes to packed RGB.
function decodeJPEG(body) {
  if (body.length < 4 || body[0] !== 0xff || body[1] !== 0xd8 || body[2] !== 0xff) {
    throw new Error('no JPEG signature (FF D8 FF)');
  }
  const image = jpeg.decode(body, {
    useTArray: true,
    formatAsRGBA: false,
    tolerantDecoding: false,
    maxResolutionInMP: maxMegapixels,
    maxMemoryUsageInMB: 256,
  });
  if (!image.width || !image.height) throw new Error('no image in it');
  return image;
}

// clampBox keeps [x, y, w, h] inside the frame: CenterNet's boxes may
// reach a little past its edges.
function clampBox([x, y, w, h]) {
  const x0 = clamp01(x);
  const y0 = clamp01(y);
  const x1 = clamp01(x + w);
  const y1 = clamp01(y + h);
  return [x0, y0, x1 - x0, y1 - y0].map((v) => Math.round(v * 10000) / 10000);
}

function clamp01(v) {
  return Math.min(1, Math.max(0, v));
}

function reply(res, status, body, headers = {}) {
  if (res.destroyed) return;
  const json = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(json),
    'Cache-Control': 'no-store',
    ...headers,
  });
  res.end(json);
}

// refuseBody drops the body as it arrives and answers once it has all
// arrived, so a client still sending it reads the answer instead of a
// broken pipe (answering first let Node close the socket while the client
// wrote). A body past drainLimit is not worth reading: the connection is
// cut then.
const drainLimit = 64 << 20;
function refuseBody(req, res, status, error, headers = {}) {
  let dropped = 0;
  req.on('data', (chunk) => {
    dropped += chunk.length;
    if (dropped > drainLimit) req.destroy();
  });
  req.on('end', () => reply(res, status, { error }, headers));
  req.on('error', () => {});
}

// fileRouter loads a tfjs model from a file:// URL: model.json, then the
// weight files its manifest names, from the same folder. tfjs without
// tfjs-node has no loader for files, and tfjs-node downloads a native
// library when it installs.
function fileRouter(url) {
  if (typeof url !== 'string' || !url.startsWith('file://')) return null;
  const modelPath = fileURLToPath(url);
  return {
    load: async () => {
      const modelJSON = JSON.parse(await readFile(modelPath, 'utf8'));
      return tf.io.getModelArtifactsForJSON(modelJSON, async (manifest) => {
        const specs = [];
        const buffers = [];
        for (const group of manifest) {
          specs.push(...group.weights);
          for (const p of group.paths) {
            const buf = await readFile(path.join(path.dirname(modelPath), p));
            buffers.push(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
          }
        }
        return [specs, tf.io.concatenateArrayBuffers(buffers)];
      });
    },
  };
}

function intArg(name, min, max) {
  const v = Number(args[name]);
  if (!Number.isInteger(v) || v < min || v > max) fail(`--${name} must be an integer from ${min} to ${max}`);
  return v;
}

function fail(message) {
  console.error(`detector: ${message}`);
  process.exit(1);
}
