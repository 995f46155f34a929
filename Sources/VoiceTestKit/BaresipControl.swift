#if canImport(Glibc)
    import Glibc
#endif
import Foundation

/// A client for baresip's `ctrl_tcp` module: netstring-framed JSON commands
/// (`{"command":"dial","params":"sip:bob@127.0.0.1:5062","token":"t1"}`) answered by
/// `{"response":true,"ok":true,"data":"...","token":"t1"}`, and the events baresip pushes on the
/// same connection (`{"event":true,"type":"CALL_ESTABLISHED",...}`).
///
/// A reader thread collects responses and events as they arrive; every call blocks with a
/// timeout. `ctrl_tcp` serves one connection at a time: a second client replaces the first.
/// Events are only sent to a connected client, so connect before the call starts.
///
/// baresip 1.0.0 quirks: `hold`, `resume` and `sndcode` exist only while a call is up (otherwise
/// ``BaresipControlError/Kind/commandFailed`` with `command not found`); `accept` and `hangup`
/// answer `ok` even with no call to act on. Commands act on the current call.
/// Thread-safe.
package final class BaresipControl: Sendable {
    /// How baresip answers incoming calls (`answermode`).
    package enum AnswerMode: String, Hashable, Sendable {
        /// Answer at once (still sends 180 first).
        case auto
        /// Ring (`CALL_INCOMING`) until ``BaresipControl/accept(timeout:)``.
        case manual
        /// Answer with early media (183).
        case early
    }

    /// The most events kept; older ones are dropped first (RTCP reports come every few seconds).
    package static let maximumEvents = 4096
    /// The longest command line (`<command> <params>`): baresip copies it into a 256-byte buffer.
    package static let maximumCommandLength = 255
    /// The default time to wait for a response.
    package static let defaultTimeout: Duration = .seconds(5)

    /// The control port on 127.0.0.1 (or ``host``).
    package let port: Int
    /// The control host.
    package let host: String
    private let shared: Shared

    /// Connects to `ctrl_tcp_listen` at `host:port`, retrying while the port refuses, and starts
    /// reading responses and events.
    /// - Throws: ``BaresipControlError/Kind/connectFailed`` after `timeout`.
    package init(host: String = "127.0.0.1", port: Int, connectTimeout: Duration = .seconds(5)) throws(BaresipControlError) {
        let fd = try Self.connect(host: host, port: port, timeout: connectTimeout)
        self.host = host
        self.port = port
        self.shared = Shared(fd: fd)
        let shared = self.shared
        let thread = Thread { Self.readLoop(shared) }
        thread.name = "baresip-control-\(port)"
        thread.start()
    }

    deinit { close() }

    // MARK: Commands

    /// Sends `<name> <params>` and waits for its response.
    /// - Parameters:
    ///   - name: A command name from `help` (`dial`, `accept`, `listcalls`, ...).
    ///   - params: The rest of the command line, if any.
    ///   - timeout: How long to wait for the response.
    /// - Returns: The response; its `data` is what the command printed.
    /// - Throws: ``BaresipControlError/Kind/commandFailed`` when baresip answers `ok: false`,
    ///   ``BaresipControlError/Kind/timeout``, ``BaresipControlError/Kind/closed``,
    ///   ``BaresipControlError/Kind/invalidArgument`` for a name or params baresip would misread.
    @discardableResult
    package func command(_ name: String, _ params: String? = nil, timeout: Duration = defaultTimeout) throws(BaresipControlError) -> BaresipControlResponse {
        let response = try send(name, params, timeout: timeout)
        guard response.ok else {
            let line = params.map { "\(name) \($0)" } ?? name
            throw BaresipControlError(.commandFailed, "\(line): \(response.data.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        return response
    }

    /// `dial <uri>`: calls `uri` from the account. Wait for ``BaresipEventType/callEstablished``.
    package func dial(_ uri: String, timeout: Duration = defaultTimeout) throws(BaresipControlError) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~+/=:@,;%?&[]!*'()$")
        guard !uri.isEmpty, uri.allSatisfy({ allowed.contains($0) }) else {
            throw BaresipControlError(.invalidArgument, "dial URI \"\(uri)\" is empty or has characters outside a SIP URI")
        }
        try command("dial", uri, timeout: timeout)
    }

    /// `accept`: answers the ringing incoming call (answer mode `manual`).
    package func accept(timeout: Duration = defaultTimeout) throws(BaresipControlError) {
        try command("accept", timeout: timeout)
    }

    /// `hangup`: ends the current call (BYE, CANCEL or a rejection, by state).
    package func hangUp(timeout: Duration = defaultTimeout) throws(BaresipControlError) {
        try command("hangup", timeout: timeout)
    }

    /// `hold`: re-INVITE with `a=sendonly` on the current call.
    package func hold(timeout: Duration = defaultTimeout) throws(BaresipControlError) {
        try command("hold", timeout: timeout)
    }

    /// `resume`: re-INVITE with `a=sendrecv` on the current call.
    package func resume(timeout: Duration = defaultTimeout) throws(BaresipControlError) {
        try command("resume", timeout: timeout)
    }

    /// `sndcode <digits>`: sends each digit as RFC 4733 telephone-events on the current call.
    /// - Parameter digits: `0`-`9`, `*`, `#`, `A`-`D`; at most 64.
    package func sendDTMF(_ digits: String, timeout: Duration = defaultTimeout) throws(BaresipControlError) {
        let allowed = Set("0123456789*#ABCD")
        guard !digits.isEmpty, digits.count <= 64, digits.allSatisfy({ allowed.contains($0) }) else {
            throw BaresipControlError(.invalidArgument, "DTMF digits \"\(digits)\" must be 1 to 64 of 0-9 * # A-D")
        }
        try command("sndcode", digits, timeout: timeout)
    }

    /// `answermode <mode>`: changes how the account answers the next incoming call.
    package func setAnswerMode(_ mode: AnswerMode, timeout: Duration = defaultTimeout) throws(BaresipControlError) {
        try command("answermode", mode.rawValue, timeout: timeout)
    }

    /// `listcalls`: the calls baresip has, the current one marked.
    package func calls(timeout: Duration = defaultTimeout) throws(BaresipControlError) -> [BaresipControlCall] {
        BaresipControlCall.parseList(try command("listcalls", timeout: timeout).data)
    }

    /// The state of the current call (`ESTABLISHED`, `RINGING`, ...), nil with no call.
    package func currentCallState(timeout: Duration = defaultTimeout) throws(BaresipControlError) -> String? {
        let calls = try calls(timeout: timeout)
        return (calls.first { $0.isCurrent } ?? calls.first)?.state
    }

    /// Polls `listcalls` every 50 ms until the current call is in `state` (`INCOMING`, `ESTABLISHED`, ...).
    ///
    /// A fallback for events baresip 1.0.0 does not always deliver: `CALL_INCOMING` has been seen
    /// missing from the control connection while `listcalls` showed the ringing call.
    /// - Throws: ``BaresipControlError/Kind/timeout`` naming the last state seen.
    package func waitForCallState(_ state: String, timeout: Duration = .seconds(10)) throws(BaresipControlError) {
        let deadline = ContinuousClock.now + timeout
        var last: String?
        repeat {
            last = try currentCallState(timeout: max(deadline - .now, .milliseconds(100)))
            if last == state { return }
            usleep(50_000)
        } while ContinuousClock.now < deadline
        throw BaresipControlError(.timeout, "call state \(last ?? "none") is not \(state) after \(timeout)")
    }

    /// The negotiated direction of the current call's audio (`sendrecv`, `sendonly`, `recvonly`,
    /// `inactive`), read from `audio_debug`; nil with no call.
    package func audioDirection(timeout: Duration = defaultTimeout) throws(BaresipControlError) -> String? {
        let response = try send("audio_debug", nil, timeout: timeout)
        guard response.ok, let range = response.data.range(of: "audio dir=") else { return nil }
        let word = response.data[range.upperBound...].prefix { $0.isLetter }
        return word.isEmpty ? nil : String(word)
    }

    // MARK: Events

    /// Every event received so far (up to ``maximumEvents``), oldest first, whether or not a
    /// wait has returned it.
    package var receivedEvents: [BaresipControlEvent] {
        shared.withLock { $0.events.map(\.event) }
    }

    /// The events of `type` received so far.
    package func events(ofType type: BaresipEventType) -> [BaresipControlEvent] {
        receivedEvents.filter { $0.type == type }
    }

    /// Waits for the oldest event of `type` (and matching `predicate`) that no earlier wait
    /// returned, so three waits for ``BaresipEventType/callDTMFStart`` return three digits in order.
    /// Events that arrived before the call are found too.
    /// - Throws: ``BaresipControlError/Kind/timeout`` (listing the event types seen), or
    ///   ``BaresipControlError/Kind/closed`` once the connection is gone and no such event is left.
    @discardableResult
    package func waitForEvent(
        _ type: BaresipEventType, timeout: Duration = .seconds(10),
        where predicate: (BaresipControlEvent) -> Bool = { _ in true }
    ) throws(BaresipControlError) -> BaresipControlEvent {
        let deadline = ContinuousClock.now + timeout
        let result: Result<BaresipControlEvent, BaresipControlError> = shared.waitWithLock(until: deadline) { state in
            if let index = state.events.firstIndex(where: { !$0.returned && $0.event.type == type && predicate($0.event) }) {
                state.events[index].returned = true
                return .success(state.events[index].event)
            }
            if let closed = state.closed {
                return .failure(BaresipControlError(.closed, "waiting for \(type.rawValue): \(closed.detail)"))
            }
            return nil
        } onTimeout: { state in
            let seen = state.events.map(\.event.description).suffix(40).joined(separator: ", ")
            return .failure(BaresipControlError(.timeout, "no \(type.rawValue) within \(timeout); events: [\(seen)]"))
        }
        return try result.get()
    }

    // MARK: Connection

    /// True until the connection is closed by either side.
    package var isConnected: Bool { shared.withLock { $0.closed == nil } }

    /// Closes the connection and waits (bounded) for the reader thread to finish. Idempotent.
    package func close() {
        shared.withLock { state in
            if state.closed == nil {
                state.closed = BaresipControlError(.closed, "closed by the client")
            }
            if !state.readerFinished { _ = shutdown(state.fd, Int32(SHUT_RDWR)) }
            shared.broadcast()
        }
        shared.waitWithLock(until: ContinuousClock.now + .seconds(2)) { $0.readerFinished ? () : nil } onTimeout: { _ in () }
    }

    // MARK: Internals

    private func send(_ name: String, _ params: String?, timeout: Duration) throws(BaresipControlError) -> BaresipControlResponse {
        guard !name.isEmpty, name.count <= 32, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
            throw BaresipControlError(.invalidArgument, "command name \"\(name)\" must be 1 to 32 letters, digits or _")
        }
        if let params {
            guard params.allSatisfy({ $0.isASCII && !$0.isNewline && $0 != "\t" && $0.asciiValue.map { $0 >= 0x20 && $0 < 0x7f } ?? false }) else {
                throw BaresipControlError(.invalidArgument, "params of \(name) hold non-printable characters")
            }
        }
        let line = params.map { "\(name) \($0)" } ?? name
        guard line.utf8.count <= Self.maximumCommandLength else {
            throw BaresipControlError(.invalidArgument, "command line of \(line.utf8.count) bytes, over \(Self.maximumCommandLength)")
        }
        let deadline = ContinuousClock.now + timeout
        let sent: Result<String, BaresipControlError> = shared.withLock { state in
            if let closed = state.closed { return .failure(BaresipControlError(.closed, "\(line): \(closed.detail)")) }
            state.nextToken += 1
            let token = "t\(state.nextToken)"
            var message: [String: String] = ["command": name, "token": token]
            if let params { message["params"] = params }
            let frame: [UInt8]
            do {
                let json = try JSONSerialization.data(withJSONObject: message, options: [.sortedKeys, .withoutEscapingSlashes])
                frame = try BaresipControlNetstring.encode(Array(json))
            } catch let error as BaresipControlError {
                return .failure(error)
            } catch {
                return .failure(BaresipControlError(.invalidArgument, "cannot encode \(line): \(error)"))
            }
            if let failure = Self.sendAll(frame, to: state.fd) {
                return .failure(BaresipControlError(.socket, "\(line): \(failure)"))
            }
            return .success(token)
        }
        let token = try sent.get()
        let result: Result<BaresipControlResponse, BaresipControlError> = shared.waitWithLock(until: deadline) { state in
            if let response = state.responses.removeValue(forKey: token) { return .success(response) }
            if let closed = state.closed { return .failure(BaresipControlError(.closed, "\(line): \(closed.detail)")) }
            return nil
        } onTimeout: { _ in
            .failure(BaresipControlError(.timeout, "no response to \(line) within \(timeout)"))
        }
        return try result.get()
    }

    /// Writes all of `bytes`; an error text on failure.
    private static func sendAll(_ bytes: [UInt8], to fd: Int32) -> String? {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return Glibc.send(fd, base + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                return "send: \(String(cString: strerror(errno)))"
            }
            offset += sent
        }
        return nil
    }

    private static func connect(host: String, port: Int, timeout: Duration) throws(BaresipControlError) -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        guard (1...65_535).contains(port), inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw BaresipControlError(.invalidArgument, "control address \(host):\(port) is not an IPv4 address and port")
        }
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let deadline = ContinuousClock.now + timeout
        var lastError: Int32 = 0
        repeat {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw BaresipControlError(.socket, "socket: errno \(errno)") }
            var sendTimeout = timeval(tv_sec: 2, tv_usec: 0)
            _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, socklen_t(MemoryLayout<timeval>.size))
            let rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            if rc == 0 { return fd }
            lastError = errno
            Glibc.close(fd)
            usleep(50_000)
        } while ContinuousClock.now < deadline
        throw BaresipControlError(
            .connectFailed, "\(host):\(port) within \(timeout): \(String(cString: strerror(lastError)))")
    }

    /// Reads frames until the connection closes, a framing error, or ``close()``; then closes the socket.
    private static func readLoop(_ shared: Shared) {
        let fd = shared.withLock { $0.fd }
        var decoder = BaresipControlNetstring.Decoder()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var ending: BaresipControlError?
        while ending == nil {
            if shared.withLock({ $0.closed != nil }) { break }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 100)
            if ready < 0 {
                if errno == EINTR { continue }
                ending = BaresipControlError(.socket, "poll: \(String(cString: strerror(errno)))")
                break
            }
            if ready == 0 { continue }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                ending = BaresipControlError(.socket, "recv: \(String(cString: strerror(errno)))")
                break
            }
            if count == 0 {
                ending = BaresipControlError(.closed, "baresip closed the control connection")
                break
            }
            decoder.append(buffer[0..<count])
            do {
                while let payload = try decoder.next() {
                    let message = try? BaresipControlMessage.decode(payload)
                    shared.withLock { state in
                        switch message {
                        case .response(let response):
                            state.responses[response.token ?? ""] = response
                        case .event(let event):
                            state.events.append(Shared.Entry(event: event, returned: false))
                            if state.events.count > BaresipControl.maximumEvents { state.events.removeFirst() }
                        case nil:
                            state.ignoredMessages += 1
                        }
                        shared.broadcast()
                    }
                }
            } catch {
                ending = error
            }
        }
        shared.withLock { state in
            if state.closed == nil { state.closed = ending ?? BaresipControlError(.closed, "reader stopped") }
            Glibc.close(state.fd)
            state.readerFinished = true
            shared.broadcast()
        }
    }

    /// The state shared with the reader thread, guarded by one condition lock.
    private final class Shared: @unchecked Sendable {
        struct Entry {
            var event: BaresipControlEvent
            var returned: Bool
        }

        struct State {
            var fd: Int32
            var events: [Entry] = []
            var responses: [String: BaresipControlResponse] = [:]
            var nextToken = 0
            var ignoredMessages = 0
            var closed: BaresipControlError?
            var readerFinished = false
        }

        private let condition = NSCondition()
        // Accessed only while `condition` is locked.
        private var state: State

        init(fd: Int32) { state = State(fd: fd) }

        func withLock<T>(_ body: (inout State) -> T) -> T {
            condition.lock()
            defer { condition.unlock() }
            return body(&state)
        }

        /// Runs `body` under the lock until it returns a value, waiting for a broadcast between
        /// runs; once `deadline` has passed, returns `onTimeout` instead. No access to the state
        /// spans a wait, so the reader thread can change it meanwhile.
        @discardableResult
        func waitWithLock<T>(
            until deadline: ContinuousClock.Instant, _ body: (inout State) -> T?, onTimeout: (inout State) -> T
        ) -> T {
            condition.lock()
            defer { condition.unlock() }
            while true {
                if let value = body(&state) { return value }
                let remaining = deadline - .now
                guard remaining > .zero else { return onTimeout(&state) }
                let seconds = Double(remaining.components.seconds) + Double(remaining.components.attoseconds) / 1e18
                _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
            }
        }

        func broadcast() { condition.broadcast() }
    }
}
