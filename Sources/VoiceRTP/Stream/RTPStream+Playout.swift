import VoiceSupport

extension RTPStream {
    /// The device (or the engine clock, without one) needs the frame that starts playing at
    /// `now`: it is taken from the jitter buffer and decoded, recovered from the next packet's
    /// FEC, concealed or time-scaled, and played (``RTPStreamAction/play(_:)``; silence on
    /// hold). `room` bounds how many samples a stretched frame may grow to. Returns the 48 kHz
    /// samples played.
    @discardableResult
    package mutating func playout<Output: RTPStreamOutput>(at now: MediaTime, room: Int, output: inout Output) -> Int {
        let decoded = buffers.decoded
        let payload = buffers.playoutPayload
        var produced = 0
        var concealed = false
        switch jitterBuffer.nextFrame(at: now, into: payload) {
        case .packet(let length, let duration):
            produced = decode(length: length, duration: duration, at: now)
        case .accelerate(let length, let duration, let urgent, let by):
            let n = decode(length: length, duration: duration, at: now)
            produced = timeStretch.accelerate(decoded, count: n, voiced: urgent, quietChange: to48k(by))
            timeStretchRemoved += UInt64(n - produced)
        case .stretch(let length, let duration, let urgent, let by):
            let n = decode(length: length, duration: duration, at: now)
            let limit = min(decoded.count, max(n, room))
            produced = timeStretch.stretch(
                UnsafeMutableBufferPointer(rebasing: decoded[0..<limit]), count: n, voiced: urgent, quietChange: to48k(by))
            timeStretchAdded += UInt64(produced - n)
        case .recoverFromNext(let length, let duration):
            let frames = to48k(duration)
            if let n = try? decoder.decodeFEC(
                from: UnsafeRawBufferPointer(rebasing: payload[0..<length]), frames48k: frames, into: decoded)
            {
                produced = n
            } else {
                produced = conceal(duration: duration)
                concealed = true
            }
        case .conceal(let duration):
            produced = conceal(duration: duration)
            concealed = true
        case .silence(let duration):
            produced = min(to48k(duration), decoded.count)
            UnsafeMutableBufferPointer(rebasing: decoded[0..<produced]).update(repeating: 0)
        }
        let frame = UnsafeMutableBufferPointer(rebasing: decoded[0..<produced])
        if isOnHold { frame.update(repeating: 0) }
        outputLevel = AudioFrameLevel.peak(UnsafeBufferPointer(frame))
        if packetsReceived > 0 { inbound.played(samples: produced, concealed: concealed, peak: outputLevel) }
        _ = output.perform(.play(UnsafeBufferPointer(frame)))
        return produced
    }

    private mutating func decode(length: Int, duration: Int, at now: MediaTime) -> Int {
        var check: Int?
        switch receivedAudioDecoding {
        case .always: break
        case .never: return playSilence(duration: duration)
        case .skipsAnnouncedSilence(let threshold):
            switch announcedSilence.decision(at: now) {
            case .decode: break
            case .skip: return playSilence(duration: duration)
            case .verify: check = threshold
            }
        }
        let n: Int
        do throws(MediaCodecError) {
            n = try decoder.decode(UnsafeRawBufferPointer(rebasing: buffers.playoutPayload[0..<length]), into: buffers.decoded)
        } catch {
            malformedPackets += 1
            return conceal(duration: duration)
        }
        if let check {
            let level = AudioFrameLevel.dBFS(UnsafeBufferPointer(rebasing: buffers.decoded[0..<n]))
            announcedSilence.checked(levelDBFS: level, threshold: check)
        }
        return n
    }

    /// A frame not decoded: silence of its length.
    private func playSilence(duration: Int) -> Int {
        let frames = min(to48k(duration), buffers.decoded.count)
        UnsafeMutableBufferPointer(rebasing: buffers.decoded[0..<frames]).update(repeating: 0)
        return frames
    }

    private func conceal(duration: Int) -> Int {
        let decoded = buffers.decoded
        let frames = min(to48k(duration), decoded.count)
        if let n = try? decoder.conceal(frames48k: frames, into: decoded) { return n }
        UnsafeMutableBufferPointer(rebasing: decoded[0..<frames]).update(repeating: 0)
        return frames
    }
}
