import Dispatch
import NIOCore
import VoiceSupport

extension VoiceClient {
    /// A graceful end for a service: hangs every call up (BYE, or CANCEL for one still
    /// ringing), waits for the calls to end, unregisters if the client registered, then shuts
    /// the client down. Waiting for the calls and for the unregistration is bounded by
    /// `timeout` each. `completion` runs once, on a global queue, when the client is shut down.
    package func shutdownGracefully(timeout: Duration = .seconds(5), completion: @escaping @Sendable () -> Void) {
        let finish: @Sendable () -> Void = {
            DispatchQueue.global().async {
                self.shutdown()
                completion()
            }
        }
        onLoop {
            for core in self.calls.values { core.disconnect() }
            let deadline = self.now + MediaTime(timeout)
            self.whenCallsHaveEnded(deadline: deadline) {
                guard self.notification != nil, self.configuration.registers else { return finish() }
                self.notification = nil
                let once = Locked(false)
                let done: @Sendable () -> Void = {
                    if once.withLock({ ran in defer { ran = true }; return !ran }) { finish() }
                }
                self.unregistrationCompletions.append { _ in done() }
                self.agent.unregister()
                self.agent.eventLoop.scheduleTask(in: .nanoseconds(MediaTime(timeout).nanoseconds)) { done() }
            }
        }
    }

    /// Runs `body` on the loop once no call is left, or at `deadline`.
    private func whenCallsHaveEnded(deadline: MediaTime, _ body: @escaping @Sendable () -> Void) {
        guard !calls.isEmpty, now < deadline else { return body() }
        agent.eventLoop.scheduleTask(in: .milliseconds(20)) { self.whenCallsHaveEnded(deadline: deadline, body) }
    }
}
