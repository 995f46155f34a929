import ArgumentParser
import Dispatch
import Foundation
import VoiceCore

/// `voicecall devices`: the machine's microphones and speakers, and with `--watch` each change
/// as it happens (a headset plugged in, a default picked).
struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Lists the audio devices (the sound server's, or ALSA's where none runs); --watch prints each change until interrupted.")

    @Flag(help: "Keep running and print each device added, removed or picked as the default.") var watch = false
    @Flag(help: "List ALSA's PCMs even where a sound server runs.") var alsa = false

    func run() throws {
        let printer = ChangePrinter()
        let monitor = try AudioDeviceMonitor(backend: alsa ? .alsa : nil, delegate: printer)
        defer { monitor.stop() }
        print("backend: \(monitor.backend.rawValue)")
        for device in monitor.devices {
            let format = device.formats.first.map { " \($0.sampleRate) Hz × \($0.channels)" } ?? ""
            print("\(device.direction == .playback ? "speaker" : "mic    ") \(device.isDefault ? "*" : " ") \(device.name)  \"\(device.label)\"\(format)")
        }
        guard watch else { return }
        print("watching; Ctrl-C ends")
        signal(SIGINT, SIG_IGN)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT)
        let done = DispatchSemaphore(value: 0)
        interrupt.setEventHandler { done.signal() }
        interrupt.resume()
        done.wait()
    }
}

/// Prints each change as it comes.
private final class ChangePrinter: AudioDeviceMonitorDelegate {
    func audioDeviceMonitor(_ monitor: AudioDeviceMonitor, didReport change: AudioDeviceChange) {
        switch change {
        case .added(let device): print("added: \(device)")
        case .removed(let device): print("removed: \(device)")
        case .changed(let device): print("changed: \(device)")
        case .defaultChanged(let direction, let device): print("default \(direction): \(device.map(\.description) ?? "none")")
        }
    }
}
