import ArgumentParser
import Foundation
import VoiceMedia
import VoiceSupport
import VoiceTestKit

/// `voice-bench devices`: what each way of reaching the desktop's sound server adds. On a
/// PulseAudio daemon of the benchmark's own (its default source the monitor of its default
/// sink), a device plays a click every half second and captures it back; the figure is the time
/// from the render callback that produced a click to the capture of its first sample, the
/// round trip an app's audio makes through the device layer and the server. Measured for
/// ``PulseAudioDevice`` (libpulse streams) and for ``ALSAAudioDevice`` on ALSA's `pulse` PCM
/// (the plugin), each at its default settings, in the same run.
struct DeviceLatencyBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "Prints the device round trip (render to capture) through a PulseAudio server, libpulse streams against ALSA's pulse plugin.")

    @Option(help: "Seconds measured per device.") var seconds = 8.0

    func run() throws {
        guard PulseAudioServer.isInstalled else { throw ValidationError("needs pulseaudio, its tools and ALSA's pulse plugin") }
        let pulse = try PulseAudioServer()
        defer { pulse.stop() }
        try pulse.start()
        try pulse.setDefault(source: "speaker.monitor")
        var figures: [(String, String)] = []
        let paths: [(String, () throws -> any AudioDevice)] = [
            ("pulse_direct", { try PulseAudioDevice() }),
            ("alsa_pulse_plugin", { try ALSAAudioDevice(name: "pulse") }),
        ]
        var medians: [String: Double] = [:]
        for (name, make) in paths {
            let result = try Self.measure(try make(), seconds: seconds)
            print(String(format: "%@: %d clicks, round trip p50 %.1f ms, p90 %.1f ms; device-reported latency %@", name, result.count,
                result.p50, result.p90, result.reported.map { "capture \($0.capture), playback \($0.playback)" } ?? "unknown"))
            figures.append(("device_roundtrip_ms_p50_\(name)", String(format: "%.1f", result.p50)))
            figures.append(("device_roundtrip_ms_p90_\(name)", String(format: "%.1f", result.p90)))
            medians[name] = result.p50
        }
        if let direct = medians["pulse_direct"], let plugin = medians["alsa_pulse_plugin"] {
            figures.append(("device_roundtrip_ms_plugin_minus_direct", String(format: "%.1f", plugin - direct)))
        }
        printFigures(figures)
    }

    struct Result {
        var count: Int
        var p50: Double
        var p90: Double
        var reported: AudioDeviceLatency?
    }

    static func measure(_ device: any AudioDevice, seconds: Double) throws -> Result {
        let context = ClickLoopContext()
        try device.startRendering(context: context)
        try device.startCapturing(context: context)
        Thread.sleep(forTimeInterval: seconds)
        let reported = device.latency
        device.stopCapturing()
        device.stopRendering()
        // The first clicks go while the streams settle: the figure is the rest's.
        let all = context.roundTrips
        let steady = (all.count > 4 ? Array(all.dropFirst(2)) : all).sorted()
        guard !steady.isEmpty else { throw ValidationError("no click came back through \(type(of: device))") }
        return Result(count: steady.count, p50: steady[steady.count / 2], p90: steady[min(steady.count - 1, steady.count * 9 / 10)], reported: reported)
    }
}

/// Plays a 5 ms click every half second of rendered audio and times each one's return.
private final class ClickLoopContext: AudioDeviceContext, @unchecked Sendable {
    private struct State {
        var rendered = 0
        var sent: [MediaTime] = []
        var inClick = false
        var roundTrips: [Double] = []
    }

    private let state = Locked(State())
    private let clock = MonotonicMediaClock()
    private static let interval = 24_000
    private static let clickLength = 240

    var roundTrips: [Double] { state.withLock { $0.roundTrips } }

    func readRenderAudio(into samples: UnsafeMutableBufferPointer<Int16>) {
        samples.update(repeating: 0)
        let now = clock.now()
        state.withLock { state in
            for index in samples.indices where (state.rendered + index) % Self.interval < Self.clickLength {
                samples[index] = 16_000
                if (state.rendered + index) % Self.interval == 0 {
                    state.sent.append(now + MediaTime(nanoseconds: Int64(index) * 1_000_000_000 / 48_000))
                }
            }
            state.rendered += samples.count
        }
    }

    func deliverCapturedAudio(_ samples: UnsafeBufferPointer<Int16>) {
        let now = clock.now()
        let loud = samples.firstIndex { abs(Int($0)) > 4_000 }
        state.withLock { state in
            guard let loud else {
                state.inClick = false
                return
            }
            guard !state.inClick else { return }
            state.inClick = true
            let captured = now - MediaTime(nanoseconds: Int64(samples.count - loud) * 1_000_000_000 / 48_000)
            // The click heard is the last one played before it (they are half a second apart,
            // longer than any round trip); clicks lost while a stream started are passed over.
            guard let last = state.sent.lastIndex(where: { $0 <= captured }) else { return }
            let sent = state.sent[last]
            state.sent.removeFirst(last + 1)
            state.roundTrips.append(Double((captured - sent).nanoseconds) / 1_000_000)
        }
    }

    func audioDevice(didReport event: AudioDeviceEvent) {}
}
