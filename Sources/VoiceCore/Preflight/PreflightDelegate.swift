/// Hears how a ``PreflightTest`` goes, on the options' delegate queue, as Twilio's
/// `PreflightTest` emits `connected`, `sample`, `warning`, `completed` and `failed`.
public protocol PreflightDelegate: AnyObject, Sendable {
    /// The test call connected, with media.
    func preflightDidConnect(_ test: PreflightTest)
    /// A second's sample.
    func preflight(_ test: PreflightTest, didReceiveSample sample: PreflightSample)
    /// A quality warning was raised during the test.
    func preflight(_ test: PreflightTest, didRaiseWarning warning: PreflightWarning)
    /// The test ran its course: the report.
    func preflight(_ test: PreflightTest, didCompleteWith report: PreflightReport)
    /// The test could not run or was stopped: why.
    func preflight(_ test: PreflightTest, didFailWithError error: VoiceError)
}

extension PreflightDelegate {
    public func preflightDidConnect(_ test: PreflightTest) {}
    public func preflight(_ test: PreflightTest, didReceiveSample sample: PreflightSample) {}
    public func preflight(_ test: PreflightTest, didRaiseWarning warning: PreflightWarning) {}
}
