// What the test pages share: ICE gathering, recording the remote audio as 48 kHz mono PCM, and
// the connection's view from getStats. Served by peer.py beside the pages.

function gathered(pc) {
  return new Promise((resolve) => {
    if (pc.iceGatheringState === "complete") return resolve();
    pc.addEventListener("icegatheringstatechange", () => { if (pc.iceGatheringState === "complete") resolve(); });
  });
}

// The fake microphone, with Chromium's capture processing off (it squashes test signals).
function microphone() {
  return navigator.mediaDevices.getUserMedia({
    audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false },
  });
}

function record(stream) {
  // Chromium feeds a remote track to Web Audio only while a media element plays it.
  const element = new Audio();
  element.srcObject = stream;
  element.play();
  const context = new AudioContext({ sampleRate: 48000 });
  const source = context.createMediaStreamSource(stream);
  const processor = context.createScriptProcessor(4096, 1, 1);
  const chunks = [];
  processor.onaudioprocess = (event) => {
    const input = event.inputBuffer.getChannelData(0);
    const pcm = new Int16Array(input.length);
    for (let i = 0; i < input.length; i++) pcm[i] = Math.max(-32768, Math.min(32767, Math.round(input[i] * 32767)));
    chunks.push(pcm);
  };
  source.connect(processor);
  processor.connect(context.destination);
  return () => { processor.disconnect(); source.disconnect(); return chunks; };
}

// Stops sending: no RTP from here on (RTCP goes on), so the counters of what was sent stand still.
async function stopSending(pc) {
  for (const sender of pc.getSenders()) await sender.replaceTrack(null);
}

// Records `stream` for `seconds` and posts it (POST /recording); returns the sample count.
// `beforePost` runs before the recording is posted: a test that hangs up once the recording
// arrives would otherwise race what the page still reads from the live connection.
async function recordFor(stream, seconds, beforePost) {
  const stop = record(stream);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const chunks = stop();
  const total = chunks.reduce((n, c) => n + c.length, 0);
  const all = new Int16Array(total);
  let offset = 0;
  for (const c of chunks) { all.set(c, offset); offset += c.length; }
  if (beforePost) await beforePost();
  await fetch("/recording", { method: "POST", body: all.buffer });
  return total;
}

function connectedWithin(pc, started, ms) {
  const connected = new Promise((resolve, reject) => {
    if (pc.connectionState === "connected") return resolve(performance.now() - started);
    pc.addEventListener("connectionstatechange", () => {
      if (pc.connectionState === "connected") resolve(performance.now() - started);
      if (pc.connectionState === "failed") reject(new Error("connection failed"));
    });
  });
  return Promise.race([connected, new Promise((_, reject) => setTimeout(() => reject(new Error(`no connection in ${ms} ms`)), ms))]);
}

// Adds the connection's state, DTLS/SRTP and selected pair, inbound audio counters, and the
// RFC 6464 levels the peer's packets carry (getSynchronizationSources: undefined without them)
// to `stats`.
async function describe(pc, stats) {
  stats.connectionState = pc.connectionState;
  stats.synchronizationSources = pc.getReceivers().filter((r) => r.track.kind === "audio")
    .flatMap((r) => r.getSynchronizationSources()).map((s) => ({ source: s.source, audioLevel: s.audioLevel ?? null }));
  stats.iceConnectionState = pc.iceConnectionState;
  const report = await pc.getStats();
  report.forEach((entry) => {
    if (entry.type === "transport") {
      stats.dtlsState = entry.dtlsState;
      stats.srtpCipher = entry.srtpCipher;
      stats.dtlsCipher = entry.dtlsCipher;
      stats.tlsVersion = entry.tlsVersion;
      const pair = entry.selectedCandidatePairId && report.get(entry.selectedCandidatePairId);
      if (pair) {
        const local = report.get(pair.localCandidateId), far = report.get(pair.remoteCandidateId);
        stats.selectedPair = `${local.candidateType} ${local.address}:${local.port} -> ${far.candidateType} ${far.address}:${far.port}`;
        stats.localCandidateType = local.candidateType;
        stats.remoteCandidateType = far.candidateType;
        stats.pair = {
          packetsSent: pair.packetsSent, packetsReceived: pair.packetsReceived, bytesSent: pair.bytesSent,
          bytesReceived: pair.bytesReceived, requestsSent: pair.requestsSent, requestsReceived: pair.requestsReceived,
          responsesSent: pair.responsesSent, responsesReceived: pair.responsesReceived,
          consentRequestsSent: pair.consentRequestsSent, currentRoundTripTime: pair.currentRoundTripTime ?? null,
          nominated: pair.nominated, state: pair.state,
        };
      }
    }
    if (entry.type === "inbound-rtp" && entry.kind === "audio") {
      stats.inbound = {
        packetsReceived: entry.packetsReceived, packetsLost: entry.packetsLost, jitter: entry.jitter,
        concealedSamples: entry.concealedSamples, totalSamplesReceived: entry.totalSamplesReceived,
        insertedSamplesForDeceleration: entry.insertedSamplesForDeceleration,
        removedSamplesForAcceleration: entry.removedSamplesForAcceleration,
        jitterBufferDelayMs: entry.jitterBufferEmittedCount ? 1000 * entry.jitterBufferDelay / entry.jitterBufferEmittedCount : null,
        // Redundant (RFC 2198) blocks NetEq took apart, and those it did not need.
        fecPacketsReceived: entry.fecPacketsReceived, fecPacketsDiscarded: entry.fecPacketsDiscarded,
        bytesReceived: entry.bytesReceived, headerBytesReceived: entry.headerBytesReceived,
        concealmentEvents: entry.concealmentEvents, jitterBufferEmittedCount: entry.jitterBufferEmittedCount,
        codec: entry.codecId && report.get(entry.codecId) ? report.get(entry.codecId).mimeType : null,
      };
    }
    if (entry.type === "outbound-rtp" && entry.kind === "audio") {
      stats.outbound = {
        packetsSent: entry.packetsSent, bytesSent: entry.bytesSent, targetBitrate: entry.targetBitrate,
        headerBytesSent: entry.headerBytesSent,
        codec: entry.codecId && report.get(entry.codecId) ? report.get(entry.codecId).mimeType : null,
      };
    }
  });
}
