import VoiceMedia
import VoiceTestAudio

/// The simulated-room cases voice processing is judged on (issue: single talk, double talk, an
/// echo path change, noise, gain), each run through a ``VoiceProcessor`` frame by frame as a
/// device would: the far party's speech is played (the render reference), the room turns it into
/// echo, and the microphone adds near-end speech and noise. Tests assert on the results; the
/// benchmark prints them for both processors.
///
/// Levels: speech at an active level of −26 dBFS (ITU-T P.56's nominal level), the echo path at
/// −6 dB direct plus as much reverberant energy (RT60 300 ms), a microphone noise floor at
/// −70 dBFS unless the case is about noise.
package struct VoiceProcessingScenarios {
    /// Makes a fresh processor for each case.
    package let makeProcessor: () -> (any VoiceProcessor)?
    /// The far party's voice.
    package let far: [Int16]
    /// The near-end talker.
    package let near: [Int16]
    /// Other voices, for babble.
    package let others: [[Int16]]
    package let sampleRate = 48_000

    /// Cases over three voices (``PESQScorer/speakers()``): the first is the far party, the
    /// second the near-end talker.
    package init(voices: [[Int16]], makeProcessor: @escaping () -> (any VoiceProcessor)?) {
        precondition(voices.count >= 2, "two voices at least")
        self.makeProcessor = makeProcessor
        self.far = Self.leveled(voices[0], -26)
        self.near = Self.leveled(voices[1], -26)
        self.others = voices
    }

    private static func leveled(_ voice: [Int16], _ level: Double) -> [Int16] {
        RoomSignals.mix(RoomSignals.speech(voice, atActiveLevel: level))
    }

    /// Runs `processor` with `options` over `microphone`, with `render` as what was played, in
    /// 10 ms frames; the device reports `delay` ms.
    package static func run(
        _ processor: any VoiceProcessor, options: AudioProcessingOptions, microphone: [Int16], render: [Int16], delay: Int
    ) -> [Int16] {
        _ = processor.setStages(options)
        let frame = processor.frameLength
        var output = microphone
        var played = [Int16](repeating: 0, count: frame)
        output.withUnsafeMutableBufferPointer { out in
            guard let base = out.baseAddress else { return }
            var start = 0
            while start + frame <= out.count {
                for i in 0..<frame { played[i] = start + i < render.count ? render[start + i] : 0 }
                played.withUnsafeBufferPointer { if let base = $0.baseAddress { processor.analyzeRender(base) } }
                processor.processCapture(base + start, delayMilliseconds: delay)
                start += frame
            }
        }
        return output
    }

    /// Seconds as samples.
    package func samples(_ seconds: Double) -> Int { Int(seconds * Double(sampleRate)) }

    // MARK: - Echo

    /// ERLE from `convergence` seconds on, with only the far party talking (echo cancellation
    /// and the high-pass filter on, nothing else), and the canceller's own metrics at the end.
    package func singleTalk(room: EchoRoom = EchoRoom(), convergence: Double = 2) -> (erle: Double, reported: EchoMetrics?)? {
        guard let processor = makeProcessor() else { return nil }
        let echo = room.echo(of: far)
        let floor = RoomSignals.whiteNoise(count: far.count, level: -70)
        let microphone = RoomSignals.mix(echo, floor)
        let output = Self.run(processor, options: .init(noiseSuppression: false, autoGainControl: false), microphone: microphone, render: far, delay: Int(room.delay * 1000))
        let erle = RoomSignals.echoReturnLossEnhancement(microphone: echo, output: output, from: samples(convergence))
        return (erle, processor.echoMetrics)
    }

    /// The echo path's delay grows by `jump` seconds at `at` seconds: ERLE over each 250 ms from
    /// the jump on, and the time until ERLE stays at or above `target` dB.
    package func pathChange(jump: Double = 0.04, at: Double = 5, target: Double = 20) -> (recovery: Double?, erleAfter: [Double])? {
        guard let processor = makeProcessor() else { return nil }
        let room = EchoRoom()
        let echo = room.echo(of: far, delayJump: jump, at: at)
        let microphone = RoomSignals.mix(echo, RoomSignals.whiteNoise(count: far.count, level: -70))
        let output = Self.run(processor, options: .init(noiseSuppression: false, autoGainControl: false), microphone: microphone, render: far, delay: Int(room.delay * 1000))
        var windows: [Double] = []
        var start = samples(at)
        while start + samples(0.25) <= far.count {
            windows.append(RoomSignals.echoReturnLossEnhancement(microphone: echo, output: output, from: start, to: start + samples(0.25)))
            start += samples(0.25)
        }
        // Recovered at the first window from which every later one (up to 2 s) holds the target.
        let horizon = min(windows.count, 8)
        let recovered = (0..<horizon).first { i in windows[i..<horizon].allSatisfy { $0 >= target } }
        return (recovered.map { Double($0) * 0.25 }, windows)
    }

    /// How the two parties' speech overlaps in the double-talk case.
    package enum Overlap: Sendable {
        /// A conversation: each talks in turns of about 3.5 s and they talk over each other for
        /// 1 s at every change of turn (far 0–4 s and 6–9.5 s, near 3–7 s and 8.5–12 s: 40 % of
        /// the near end's speech is double talk).
        case turns
        /// Both talk all the time.
        case continuous

        /// Where each party talks, seconds.
        package var spans: (far: [ClosedRange<Double>], near: [ClosedRange<Double>]) {
            switch self {
            case .turns: ([0...4, 6...9.5], [3...7, 8.5...12])
            case .continuous: ([0...1_000], [0...1_000])
            }
        }
    }

    /// `signal` kept within `spans` (20 ms fades) and silent elsewhere.
    package func gated(_ signal: [Int16], _ spans: [ClosedRange<Double>]) -> [Int16] {
        let fade = Double(samples(0.02))
        return signal.indices.map { i in
            let t = Double(i) / Double(sampleRate)
            var gain = 0.0
            for span in spans where span.contains(t) {
                let fromStart = (t - span.lowerBound) * Double(sampleRate), toEnd = (span.upperBound - t) * Double(sampleRate)
                gain = max(gain, min(1, fromStart / fade, toEnd / fade))
            }
            return Int16(clamping: Int((Double(signal[i]) * gain).rounded()))
        }
    }

    /// PESQ-WB of the near-end talker while the far party's echo comes back, with echo
    /// cancellation on and off (high-pass filter on in both; noise suppression and gain control
    /// off), scored from `skip` seconds on against the clean near-end speech.
    package func doubleTalk(scorer: PESQScorer, overlap: Overlap = .turns, room: EchoRoom = EchoRoom(), skip: Double = 2) throws -> (on: Double, off: Double)? {
        let count = min(far.count, near.count)
        let spans = overlap.spans
        let farPart = gated(Array(far.prefix(count)), spans.far), nearPart = gated(Array(near.prefix(count)), spans.near)
        let echo = room.echo(of: farPart)
        let microphone = RoomSignals.mix(echo, nearPart.map(Double.init), RoomSignals.whiteNoise(count: count, level: -70))
        guard let on = makeProcessor(), let off = makeProcessor() else { return nil }
        let delay = Int(room.delay * 1000)
        let withAEC = Self.run(on, options: .init(noiseSuppression: false, autoGainControl: false), microphone: microphone, render: farPart, delay: delay)
        let without = Self.run(off, options: .init(echoCancellation: false, noiseSuppression: false, autoGainControl: false), microphone: microphone, render: farPart, delay: delay)
        let from = samples(skip)
        let reference = Array(nearPart[from...])
        return (
            try scorer.score(reference: reference, degraded: Array(withAEC[from...]), name: "double-talk-on"),
            try scorer.score(reference: reference, degraded: Array(without[from...]), name: "double-talk-off")
        )
    }

    // MARK: - Noise

    /// The noise cases: PESQ-WB of the near-end talker in white noise and in babble at `snr` dB,
    /// with noise suppression on and off (nothing else on), and of clean speech on and off.
    package func noise(scorer: PESQScorer, snr: Double = 10, skip: Double = 1) throws -> [String: (on: Double, off: Double)]? {
        let count = near.count
        let noises: [(String, [Double])] = [
            ("white", RoomSignals.whiteNoise(count: count, level: -26 - snr, seed: 11)),
            ("babble", RoomSignals.babble(count: count, voices: Array(others.dropFirst(2)) + [others[0]], level: -26 - snr)),
            ("clean", RoomSignals.whiteNoise(count: count, level: -90, seed: 13)),
        ]
        var results: [String: (on: Double, off: Double)] = [:]
        let from = samples(skip)
        let reference = Array(near[from...])
        for (name, noise) in noises {
            guard let processor = makeProcessor() else { return nil }
            let microphone = RoomSignals.mix(near.map(Double.init), noise)
            let silence = [Int16](repeating: 0, count: count)
            let suppressed = Self.run(processor, options: .init(echoCancellation: false, autoGainControl: false, highPassFilter: false), microphone: microphone, render: silence, delay: 0)
            results[name] = (
                try scorer.score(reference: reference, degraded: Array(suppressed[from...]), name: "ns-\(name)-on"),
                try scorer.score(reference: reference, degraded: Array(microphone[from...]), name: "ns-\(name)-off")
            )
        }
        return results
    }

    // MARK: - Gain

    /// A quiet talker (active level `level` dBFS) over a −70 dBFS noise floor through the default
    /// chain (every stage on; nothing is played): the output's active speech level from `skip`
    /// seconds on, and the gain applied in speech and in the pauses between words (a gain
    /// control that pumps raises the latter above the former).
    package func gain(level: Double = -35, skip: Double = 2, options: AudioProcessingOptions = .all) -> (outputLevel: Double, speechGain: Double, pauseGain: Double)? {
        guard let processor = makeProcessor() else { return nil }
        let talker = RoomSignals.speech(near, atActiveLevel: level)
        let floor = RoomSignals.whiteNoise(count: near.count, level: -70, seed: 17)
        let microphone = RoomSignals.mix(talker, floor)
        let output = Self.run(processor, options: options, microphone: microphone, render: [Int16](repeating: 0, count: near.count), delay: 0)
        let from = samples(skip)
        let active = RoomSignals.activeFrames(talker).filter { $0.lowerBound >= from }
        let frame = sampleRate / 50
        // Pauses: the middle of silences in the clean talker (40 dB below its loudest frame, and
        // so for 100 ms on either side), so that neither the processing's own delay (its filter
        // banks, a few ms) nor a word's reverberation puts speech in them: only the floor.
        let loudest = RoomSignals.activeFrames(talker).map { RoomSignals.level(talker, $0) }.max() ?? -120
        let silent = stride(from: 0, to: talker.count - frame + 1, by: frame).map { RoomSignals.level(talker, $0..<($0 + frame)) < loudest - 40 }
        let margin = 5
        let pauses = silent.indices.filter { k in
            k * frame >= from && k >= margin && k + margin < silent.count && (k - margin...k + margin).allSatisfy { silent[$0] }
        }.map { ($0 * frame)..<($0 * frame + frame) }

        let out = output.map(Double.init), mic = microphone.map(Double.init)
        let outputLevel = RoomSignals.powerLevel(out, active)
        return (
            outputLevel, outputLevel - RoomSignals.powerLevel(mic, active),
            RoomSignals.powerLevel(out, pauses) - RoomSignals.powerLevel(mic, pauses)
        )
    }
}
