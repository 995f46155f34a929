import CPulse
import VoiceSupport

#if canImport(Glibc)
    import Glibc
#endif

/// One connection to the sound server: a libpulse main loop and a context on it, both driven
/// by whichever thread holds the connection (one at a time: it is made on the thread that
/// starts a device, then handed to the device's own thread).
///
/// The loop is turned by ``iterate(timeoutMicroseconds:)``, which waits at most that long, so a
/// thread that owns it checks its stop flag between turns. Nothing here takes a lock.
final class PulseConnection {
    let mainloop: OpaquePointer
    let context: OpaquePointer
    /// Where the server was reached, for messages ("the default server" when not named).
    let serverName: String

    /// Connects to `server` (nil: the default, `PULSE_SERVER` or the session's), as
    /// `applicationName`, and waits up to `timeout` until the context is ready.
    ///
    /// - Throws: ``AudioDeviceError/Kind/openFailed`` with the server's reason: refused (no
    ///   server runs: transient, a restarting server comes back), timed out, access denied.
    init(applicationName: String, server: String? = nil, timeout: Duration = .seconds(2)) throws(AudioDeviceError) {
        guard let mainloop = pa_mainloop_new() else {
            throw AudioDeviceError(kind: .openFailed, code: -ENOMEM, message: "PulseAudio: cannot create a main loop")
        }
        let properties = pa_proplist_new()
        pa_proplist_sets(properties, "application.name", applicationName)
        pa_proplist_sets(properties, "media.role", "phone")
        let context = pa_context_new_with_proplist(pa_mainloop_get_api(mainloop), applicationName, properties)
        pa_proplist_free(properties)
        guard let context else {
            pa_mainloop_free(mainloop)
            throw AudioDeviceError(kind: .openFailed, code: -ENOMEM, message: "PulseAudio: cannot create a context")
        }
        self.mainloop = mainloop
        self.context = context
        self.serverName = server ?? "the default server"
        // No autospawn: a server that is not there is reported, never started behind the app's back.
        guard pa_context_connect(context, server, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else {
            throw failure(.openFailed, "connect to \(serverName)")
        }
        try wait(until: "connect to \(serverName)", timeout: timeout) { [context] () throws(AudioDeviceError) -> Bool in
            switch pa_context_get_state(context) {
            case PA_CONTEXT_READY: return true
            case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED: throw Self.error(pa_context_errno(context), .openFailed, "connect")
            default: return false
            }
        }
    }

    deinit {
        pa_context_disconnect(context)
        pa_context_unref(context)
        pa_mainloop_free(mainloop)
    }

    /// Whether the context still talks to the server.
    var isConnected: Bool { pa_context_get_state(context) == PA_CONTEXT_READY }

    /// Runs one turn of the main loop: waits up to `timeoutMicroseconds` for the server, then
    /// runs the callbacks due. False when the loop failed (it then cannot be used again).
    @discardableResult
    func iterate(timeoutMicroseconds: Int32) -> Bool {
        guard pa_mainloop_prepare(mainloop, timeoutMicroseconds) >= 0, pa_mainloop_poll(mainloop) >= 0 else { return false }
        return pa_mainloop_dispatch(mainloop) >= 0
    }

    /// Turns the loop until `done` is true, throws, or `timeout` passes.
    func wait(until operation: String, timeout: Duration, _ done: () throws(AudioDeviceError) -> Bool) throws(AudioDeviceError) {
        let deadline = ContinuousClock.now + timeout
        while try !done() {
            guard ContinuousClock.now < deadline else {
                throw AudioDeviceError(
                    kind: .openFailed, code: -EAGAIN, message: "PulseAudio: \(operation): no answer within \(timeout)")
            }
            guard iterate(timeoutMicroseconds: 20_000) else { throw failure(.openFailed, operation) }
        }
    }

    /// The context's last error as a typed one.
    func failure(_ kind: AudioDeviceError.Kind, _ operation: String) -> AudioDeviceError {
        Self.error(pa_context_errno(context), kind, operation)
    }

    /// A libpulse error code as a typed error, with `pa_strerror`'s text and the errno that says
    /// whether it may pass (``AudioDeviceError/isTransient``): no server or a lost connection may,
    /// as a server that restarts comes back; a missing device, a refused format or a protocol
    /// error does not.
    static func error(_ code: Int32, _ kind: AudioDeviceError.Kind, _ operation: String) -> AudioDeviceError {
        let text = pa_strerror(code).map { String(cString: $0) } ?? "error \(code)"
        let errno: Int32
        switch UInt32(bitPattern: code) {
        case PA_ERR_CONNECTIONREFUSED.rawValue: errno = ECONNREFUSED
        case PA_ERR_CONNECTIONTERMINATED.rawValue: errno = ECONNRESET
        case PA_ERR_KILLED.rawValue: errno = ENODEV
        case PA_ERR_TIMEOUT.rawValue, PA_ERR_BUSY.rawValue: errno = EAGAIN
        case PA_ERR_NOENTITY.rawValue: errno = ENOENT
        case PA_ERR_ACCESS.rawValue: errno = EACCES
        case PA_ERR_INVALID.rawValue, PA_ERR_NOTSUPPORTED.rawValue: errno = EINVAL
        case PA_ERR_IO.rawValue: errno = EIO
        // The rest (protocol, version, internal, module errors) do not pass by waiting.
        default: errno = EPROTO
        }
        return AudioDeviceError(kind: kind, code: -errno, message: "PulseAudio: \(operation): \(text)")
    }
}
