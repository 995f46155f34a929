/// Everything a call reports, as an async sequence (``Call/events``), in the same order as the
/// delegate callbacks.
public enum CallEvent: Sendable, Equatable {
    /// `callDidStartRinging`.
    case ringing
    /// `callDidConnect`.
    case connected
    /// `call(_:didFailToConnectWithError:)`.
    case failedToConnect(VoiceError)
    /// `call(_:didDisconnectWithError:)`.
    case disconnected(VoiceError?)
    /// `call(_:isReconnectingWithError:)`.
    case reconnecting(VoiceError)
    /// `callDidReconnect`.
    case reconnected
    /// `call(_:didReceiveQualityWarnings:previousWarnings:)`.
    case qualityWarnings(current: Set<CallQualityWarning>, previous: Set<CallQualityWarning>)
    /// A call message arrived.
    case messageReceived(CallMessage)
    /// `call(_:audioInterruptionDidBegin:)`.
    case audioInterruptionBegan(CallAudioInterruption)
    /// `callAudioInterruptionDidEnd(_:)`.
    case audioInterruptionEnded
    /// `callDidEstablishMedia(_:)`.
    case mediaEstablished
    /// `callDidEmitCallQualityEvent(_:event:)`.
    case callQualityEvent(CallQualityWarningEvent)
    /// `call(_:didReceiveDigit:)`.
    case digitReceived(CallDigit)
    /// `call(_:didReceiveTransferRequest:)`: the default delegate refuses it; an app reading
    /// only the events answers it here.
    case transferRequested(CallTransferRequest)
    /// `call(_:transferDidProgress:)`.
    case transferProgress(CallTransferProgress)
    /// `call(_:wasReplacedBy:)`.
    case replaced(by: Call)
}
