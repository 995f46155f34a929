import Foundation
import NIOCore
import VoiceSIP
import VoiceSIPAgent

// Call transfer in a call: ours (REFER out, its progress, the BYE once it succeeded), the far
// end's (REFER in, put to the app, the new call reported back in NOTIFYs), and a call the far
// end replaced with another (INVITE with Replaces).
extension CallCore {
    // MARK: Transferring this call

    /// A blind transfer: asks the far end to call `destination` (a user name, number or SIP
    /// address, as ``VoiceClient/connect(options:delegate:)`` takes them).
    func transfer(to destination: String) {
        guard let handle, machine.isConnected else { return transferFailed("the call is not connected") }
        let uri: SIPURI
        do throws(VoiceError) {
            let parsed = try CallDestination(parsing: destination)
            uri = parsed.request(domain: client.configuration.domain, conference: client.configuration.conferenceAddressing).uri
        } catch {
            return reportTransfer(.failed(error))
        }
        startTransfer(client.agent.transfer(handle, to: uri, replacing: nil))
    }

    /// An attended transfer: asks the far end to call `other`'s peer, replacing `other` there.
    func transfer(replacing other: CallCore) {
        guard let handle, machine.isConnected else { return transferFailed("the call is not connected") }
        guard other.client === client else { return transferFailed("the call to replace belongs to another client") }
        guard let otherHandle = other.handle, other.machine.isConnected, other !== self else {
            return transferFailed("the call to replace is not connected")
        }
        startTransfer(client.agent.transfer(handle, to: nil, replacing: otherHandle))
    }

    private func startTransfer(_ sent: EventLoopFuture<Void>) {
        lastTransferProgress = nil
        sent.whenFailure { error in
            self.transferFailed(error is SIPInviteSessionError ? "\(error)" : "the call is gone: \(error)")
        }
    }

    private func transferFailed(_ why: String) {
        reportTransfer(.failed(VoiceError(.callDoesNotExist, failureReason: "Transfer failed: \(why)")))
    }

    /// The REFER's answer or a NOTIFY.
    func referProgress(_ progress: SIPReferProgress) {
        switch progress {
        case .accepted:
            reportTransfer(.trying)
        case .refused(let code):
            reportTransfer(.failed(Self.transferError(code, "the far end refused the transfer")))
        case .notified(let code, _) where (200..<300).contains(code):
            reportTransfer(.succeeded)
            // RFC 5589 §6: the transferor ends its call once the transfer succeeded.
            call.update { $0.details.endCause = .transferred }
            disconnect()
        case .notified(let code, false) where code < 200:
            reportTransfer(code >= 180 ? .ringing : .trying)
        case .notified(let code, _):
            let why = code < 200 ? "the far end stopped reporting before the target answered" : "the far end's call to the target failed"
            reportTransfer(.failed(Self.transferError(code < 200 ? 408 : code, why)))
        }
    }

    private static func transferError(_ status: Int, _ why: String) -> VoiceError {
        let code = VoiceError(sipStatus: status)?.code ?? .badRequest
        return VoiceError(code, failureReason: "Transfer failed: \(why) (SIP/2.0 \(status))", sipStatus: status)
    }

    private func reportTransfer(_ progress: CallTransferProgress) {
        guard progress != lastTransferProgress else { return }
        lastTransferProgress = progress
        client.logger.info("call \(sid): transfer \(progress)")
        let call = self.call
        announce(.transferProgress(progress)) { $0.call(call, transferDidProgress: progress) }
    }

    // MARK: Being transferred

    /// The far end's REFER, put to the app; refused if nobody answers in time.
    func referReceived(_ referral: SIPReferRequest) {
        let request = CallTransferRequest(core: self, referral: referral)
        let call = self.call
        announce(.transferRequested(request)) { $0.call(call, didReceiveTransferRequest: request) }
        eventLoop.scheduleTask(in: .seconds(Int64(CallTransferRequest.answerTimeout))) {
            if request.claim() {
                self.client.logger.warning("call \(self.sid): a transfer request to \(request.target) got no answer; refused")
                self.answerTransfer(accepted: false)
            }
        }
    }

    func answerTransfer(accepted: Bool) {
        guard let handle else { return }
        client.agent.answerRefer(handle, accept: accepted && !machine.isDisconnected)
    }

    /// Accepts the REFER and places the new call.
    func acceptTransfer(_ referral: SIPReferRequest, options: ConnectOptions, delegate: CallDelegate) -> Call {
        client.onLoop { self.answerTransfer(accepted: true) }
        return client.connect(options: options, delegate: delegate, transfer: CallTransferLeg(referral, referrer: self))
    }

    /// A call placed for the far end's transfer tells the transferor (in NOTIFYs on the
    /// referring call) that it rings, connected or failed.
    func reportToTransferor(_ callback: CallStateCallback) {
        guard let referrer = transferReferrer, let referrerHandle = referrer.handle else { return }
        let status: Int
        switch callback {
        case .didStartRinging: status = 180
        case .didConnect: status = 200
        case .didFailToConnect(let error): status = voiceError(error).sipStatus.flatMap { $0 >= 300 ? $0 : nil } ?? 503
        case .didDisconnect: status = 487
        case .isReconnecting, .didReconnect: return
        }
        if status >= 200 { transferReferrer = nil }
        client.agent.notifyRefer(referrerHandle, statusCode: status)
    }

    // MARK: Replaced

    /// The far end's transferee replaced this call with `newCall` (an INVITE with Replaces): the
    /// app hears of the new call, and this one ends (BYE) with ``CallEndCause/replaced``.
    func replaced(by newCall: Call) {
        let call = self.call
        client.logger.info("call \(sid): replaced by \(newCall)")
        announce(.replaced(by: newCall)) { $0.call(call, wasReplacedBy: newCall) }
        call.update { $0.details.endCause = .replaced }
        disconnect()
    }
}
