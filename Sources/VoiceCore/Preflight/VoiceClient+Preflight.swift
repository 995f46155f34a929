import Dispatch
extension VoiceClient {
    /// Runs a preflight test, as Twilio's `Device.runPreflight`: a call to
    /// ``PreflightOptions/destination`` (an echo), sampled each second for
    /// ``PreflightOptions/duration``, then a ``PreflightReport``: a quality rating, the figures'
    /// minimum, average and maximum, the network timings, the ICE candidates and pair, and the
    /// warnings raised. `delegate` hears each step on the options' delegate queue; the test
    /// keeps itself (and the delegate) until it ends.
    @discardableResult
    public func runPreflight(options: PreflightOptions = PreflightOptions(), delegate: any PreflightDelegate) -> PreflightTest {
        let test = PreflightTest(client: self, options: options, delegate: delegate)
        test.start()
        return test
    }

    /// Runs a preflight test and returns its report; throws ``VoiceError`` when it fails. A
    /// cancelled task stops the test (31008).
    public func runPreflight(options: PreflightOptions = PreflightOptions()) async throws(VoiceError) -> PreflightReport {
        let waiter = PreflightWaiter()
        var options = options
        // Not the main queue: an `async` caller need not run it.
        options.delegateQueue = DispatchQueue(label: "voice.preflight.result")
        let running = Mutex<PreflightTest?>(nil)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiter.continuation.withLock { $0 = continuation }
                let test = runPreflight(options: options, delegate: waiter)
                running.withLock { $0 = test }
            }
        } onCancel: {
            // The test fails with 31008, which ends the wait.
            running.withLock { $0 }?.stop()
        }
        return try result.get()
    }
}

import Synchronization

/// Turns a preflight's end into the result an `async` caller awaits.
private final class PreflightWaiter: PreflightDelegate {
    let continuation = Mutex<CheckedContinuation<Result<PreflightReport, VoiceError>, Never>?>(nil)

    func preflight(_ test: PreflightTest, didCompleteWith report: PreflightReport) {
        continuation.withLock { $0.take() }?.resume(returning: .success(report))
    }

    func preflight(_ test: PreflightTest, didFailWithError error: VoiceError) {
        continuation.withLock { $0.take() }?.resume(returning: .failure(error))
    }
}
