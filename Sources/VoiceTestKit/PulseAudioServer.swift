#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import VoiceSupport

/// A PulseAudio daemon of the test's own, on two null sinks, reached through ALSA's `pulse` PCM.
///
/// `mic` is what the ALSA `pulse` PCM captures from (its monitor is the default source) and
/// `speaker` is where it plays (the default sink): a test feeds the microphone with
/// ``play(_:)`` and records what was played with ``record(sink:)``. The daemon can be killed
/// (SIGKILL, as a crash) and started again on the same socket, as a desktop's sound server
/// that goes away and comes back. Everything lives in a temporary directory removed by
/// ``stop()``. The test process reaches it through `PULSE_SERVER`, set by ``start()``.
///
/// Threading: not thread-safe; one test drives it.
package final class PulseAudioServer: @unchecked Sendable {
    /// The runtime directory (socket, configuration, logs).
    package let directory: String
    private var daemon: SIPPeerProcess?
    private var helpers: [SIPPeerProcess] = []
    private var starts = 0

    /// `unix:` address of the daemon's socket.
    package var serverAddress: String { "unix:\(directory)/pulse/native" }

    /// Whether `pulseaudio`, `paplay`, `parec` and ALSA's pulse plugin are installed.
    package static var isInstalled: Bool {
        let tools = ["pulseaudio", "pactl", "paplay", "parec"].allSatisfy { SIPPeerProcess.isInstalled($0) }
        let plugin = ["x86_64", "aarch64"].contains { arch in
            FileManager.default.fileExists(atPath: "/usr/lib/\(arch)-linux-gnu/alsa-lib/libasound_module_pcm_pulse.so")
        }
        return tools && plugin
    }

    /// Creates the directory and configuration; nothing runs until ``start()``.
    package init() throws {
        directory = NSTemporaryDirectory() + "pulse-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory + "/pulse", withIntermediateDirectories: true)
        chmod(directory, 0o700)
        let script = """
            load-module module-native-protocol-unix auth-anonymous=1 socket=\(directory)/pulse/native
            load-module module-null-sink sink_name=speaker rate=48000 channels=1
            load-module module-null-sink sink_name=mic rate=48000 channels=1
            set-default-sink speaker
            set-default-source mic.monitor
            """
        try script.write(toFile: directory + "/default.pa", atomically: true, encoding: .utf8)
        // A client that finds no server must not start one of its own: the test decides when it is back.
        try "autospawn = no\n".write(toFile: directory + "/client.conf", atomically: true, encoding: .utf8)
    }

    deinit { stop() }

    private var environment: [String: String] {
        [
            "XDG_RUNTIME_DIR": directory, "HOME": directory, "PULSE_SERVER": serverAddress, "PULSE_RUNTIME_PATH": directory + "/pulse",
            "PULSE_CLIENTCONFIG": directory + "/client.conf",
        ]
    }

    /// Starts the daemon (again, after ``kill()``) and waits until it answers; points this
    /// process's libpulse (ALSA's `pulse` PCM) at it.
    package func start(timeout: Duration = .seconds(10)) throws {
        setenv("PULSE_SERVER", serverAddress, 1)
        setenv("PULSE_CLIENTCONFIG", directory + "/client.conf", 1)
        starts += 1
        // Through a shell that stays its parent: the daemon closes the descriptors it inherits, and
        // Foundation would take that for its exit (then block in waitpid, stalling every other
        // Process of this test). Killing the shell's group kills the daemon.
        daemon = try SIPPeerProcess(
            name: "pulseaudio", executable: "sh",
            arguments: [
                "-c", "\"$0\" \"$@\"; exit $?", SIPPeerProcess.executablePath("pulseaudio") ?? "pulseaudio", "-n", "-F", directory + "/default.pa", "--daemonize=no", "--exit-idle-time=-1", "--disallow-exit",
                "--use-pid-file=no", "--system=false", "--log-target=stderr",
            ],
            workingDirectory: directory, logPath: directory + "/pulseaudio-\(starts).log", environment: environment)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let ctl = try? run("pactl", ["info"]), ctl == 0 { return }
            usleep(20_000)
        }
        throw SIPPeerError(.notReady, "pulseaudio did not answer within \(timeout): \(daemon?.logTail() ?? "")")
    }

    /// Kills the daemon (SIGKILL) and the players and recorders, whose connections died with it.
    package func kill() {
        daemon?.crash()
        daemon = nil
        for helper in helpers { helper.stop(grace: .milliseconds(100)) }
        helpers = []
    }

    /// Stops everything and removes the directory.
    package func stop() {
        kill()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Plays raw 48 kHz mono S16_LE `samples` into `sink` (the `mic` sink unless told), once
    /// (make them long enough).
    @discardableResult
    package func play(_ samples: [Int16], sink: String = "mic") throws -> SIPPeerProcess {
        let path = directory + "/play-\(helpers.count).raw"
        let data = samples.withUnsafeBufferPointer { Data(buffer: $0) }
        try data.write(to: URL(fileURLWithPath: path))
        let player = try SIPPeerProcess(
            name: "paplay", executable: "paplay",
            arguments: ["--raw", "--format=s16le", "--rate=48000", "--channels=1", "--device=\(sink)", "--latency-msec=20", path],
            workingDirectory: directory, logPath: path + ".log", environment: environment)
        helpers.append(player)
        return player
    }

    /// Records what is played into `sink` (the `speaker` sink unless told), as raw 48 kHz mono
    /// S16_LE, from now on.
    package func record(sink: String = "speaker") throws -> PulseRecording {
        let path = directory + "/record-\(helpers.count).raw"
        let recorder = try SIPPeerProcess(
            name: "parec", executable: "sh",
            arguments: ["-c", "exec parec --raw --format=s16le --rate=48000 --channels=1 --device=\(sink).monitor --latency-msec=20 > '\(path)'"],
            workingDirectory: directory, logPath: path + ".log", environment: environment)
        helpers.append(recorder)
        return PulseRecording(path: path)
    }

    /// Gives the room an acoustic echo path: PulseAudio's own `module-loopback` plays what the
    /// `speaker` sink plays into the `mic` sink (so the microphone hears the speaker, mixed with
    /// whatever else plays into `mic`), `latencyMilliseconds` late, at `volumePercent`.
    package func loopSpeakerIntoMicrophone(latencyMilliseconds: Int = 60, volumePercent: Int = 50) throws {
        guard try run("pactl", ["load-module", "module-loopback", "source=speaker.monitor", "sink=mic", "latency_msec=\(latencyMilliseconds)",
            "source_dont_move=true", "sink_dont_move=true", "remix=false", "adjust_time=0"]) == 0
        else { throw SIPPeerError(.launchFailed, "pactl load-module module-loopback failed") }
        // The loopback's playback stream is the only one into `mic` named after it.
        guard try run("sh", ["-c", "pactl list short sink-inputs | awk '/module-loopback/ {print $1}' | xargs -r -n1 -I{} pactl set-sink-input-volume {} \(volumePercent)%"]) == 0
        else { throw SIPPeerError(.launchFailed, "pactl set-sink-input-volume failed") }
    }

    /// Sets the `speaker` sink's volume, in percent.
    package func setSpeakerVolume(percent: Int) throws {
        guard try run("pactl", ["set-sink-volume", "speaker", "\(percent)%"]) == 0 else {
            throw SIPPeerError(.launchFailed, "pactl set-sink-volume failed")
        }
    }

    /// Adds a null sink named `name` (a headset plugged in, as the sound server sees it) and
    /// returns its module's index, for ``unloadModule(_:)`` (the headset unplugged).
    package func addNullSink(_ name: String) throws -> String {
        let index = try output("pactl", ["load-module", "module-null-sink", "sink_name=\(name)", "rate=48000", "channels=1"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard !index.isEmpty else { throw SIPPeerError(.launchFailed, "pactl load-module module-null-sink failed") }
        return index
    }

    /// Unloads the module at `index` (a sink it made goes away).
    package func unloadModule(_ index: String) throws {
        guard try run("pactl", ["unload-module", index]) == 0 else { throw SIPPeerError(.launchFailed, "pactl unload-module \(index) failed") }
    }

    /// Makes `sink` the default sink, as a user picking it in the desktop's settings.
    package func setDefault(sink: String) throws {
        guard try run("pactl", ["set-default-sink", sink]) == 0 else { throw SIPPeerError(.launchFailed, "pactl set-default-sink \(sink) failed") }
    }

    /// Makes `source` the default source.
    package func setDefault(source: String) throws {
        guard try run("pactl", ["set-default-source", source]) == 0 else { throw SIPPeerError(.launchFailed, "pactl set-default-source \(source) failed") }
    }

    /// Runs a pulse client tool against the daemon and returns what it printed.
    package func output(_ tool: String, _ arguments: [String]) throws -> String {
        let pipe = Pipe()
        let process = try launch(tool, arguments, output: pipe)
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// Runs a pulse client tool against the daemon and returns its exit status.
    @discardableResult
    package func run(_ tool: String, _ arguments: [String]) throws -> Int32 {
        let process = try launch(tool, arguments, output: FileHandle.nullDevice)
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Starts `tool` with the daemon's environment, its standard output to `output`.
    private func launch(_ tool: String, _ arguments: [String], output: Any) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: SIPPeerProcess.executablePath(tool) ?? tool)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }
}

/// What a ``PulseAudioServer/record(sink:)`` recorder has written so far.
package struct PulseRecording: Sendable {
    /// The raw file.
    package let path: String

    /// The samples recorded so far.
    package var samples: [Int16] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return data.withUnsafeBytes { raw in Array(raw.bindMemory(to: Int16.self)) }
    }
}
