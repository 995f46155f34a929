/// How a transfer of ours goes (``Call/transfer(to:)``, ``Call/transfer(replacing:)``), as the
/// far end reports it: the REFER's answer, then the NOTIFYs about its call to the target.
public enum CallTransferProgress: Sendable, Equatable {
    /// The far end took the transfer and is calling the target.
    case trying
    /// The target is ringing.
    case ringing
    /// The target answered: the transfer succeeded, and this call ends with
    /// ``CallEndCause/transferred``.
    case succeeded
    /// The transfer failed: the far end refused it, its call to the target failed, or it never
    /// said how the call went. This call goes on.
    case failed(VoiceError)
}
