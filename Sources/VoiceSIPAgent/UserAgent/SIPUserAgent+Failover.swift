import NIOCore
import VoiceSIP
import VoiceSupport

/// A request's place among its targets (RFC 3263 §4.3): the one it was sent to, those left to
/// try, and whether the one tried has answered.
struct SIPFailover {
    /// The target the request is at.
    var current: SIPServerTarget
    /// Targets left, in order.
    var remaining: [SIPServerTarget]
    /// What the targets were located for: the key the answering one is pinned under.
    var pin: SIPTargetResolver.Target
    /// The branch the request was first sent with (a CANCEL the session builds carries it).
    var originalBranch: String
    /// Whether any response came from ``current``.
    var answered = false
    /// Moves on when ``current`` has not answered in ``SIPUserAgentConfiguration/failoverTimeout``.
    var timer: Scheduled<Void>?
}

extension SIPUserAgent {
    /// Sends `request` to the first of `targets`, keeping the rest for failover. A retry is a new
    /// transaction: a new branch, the rest of the request unchanged.
    func attempt(
        _ request: SIPRequest, owner: SIPTransactionOwner, targets: ArraySlice<SIPServerTarget>, pin: SIPTargetResolver.Target,
        originalBranch: String?, failure: SIPFailure
    ) {
        guard let target = targets.first else {
            failRequest(request, owner: owner, failure: failure)
            return
        }
        guard let endpoint = try? SIPTransportEndpoint(transport: target.transport, ip: target.address, port: target.port) else {
            attempt(request, owner: owner, targets: targets.dropFirst(), pin: pin, originalBranch: originalBranch, failure: failure)
            return
        }
        var request = request
        let first = (try? request.headers.topVia().branch) ?? ""
        if let originalBranch, var via = try? request.headers.topVia() {
            let branch = SIPIdentifierGenerator.branch()
            via.parameters.set("branch", branch)
            request.headers.replaceFirst("via", with: via.description)
            if request.method == .invite { rebranchedInvites[originalBranch] = branch }
        }
        let failover = SIPFailover(current: target, remaining: Array(targets.dropFirst()), pin: pin, originalBranch: originalBranch ?? first)
        startClientTransaction(request, to: endpoint, serverName: target.serverName, owner: owner, failover: failover)
    }

    /// Arms the failover timer of the transaction `key` when it has somewhere else to go.
    func armFailoverTimer(_ key: SIPTransactionKey) {
        guard let failover = failovers[key], !failover.remaining.isEmpty, let timeout = configuration.failoverTimeout else { return }
        failovers[key]?.timer = eventLoop.scheduleTask(in: .nanoseconds(MediaTime(timeout).nanoseconds)) {
            guard let failover = self.failovers[key], !failover.answered else { return }
            self.logger.info("\(failover.current) did not answer in \(timeout): failing over")
            guard self.failOver(key, failure: .transactionTimeout) else { return }
            // The old transaction stops resending to the server that did not answer.
            self.perform(self.table.transportError(on: key, now: self.now))
        }
    }

    /// A response on the transaction `key`: the target answered and is pinned. A 503 moves the
    /// request on when there is somewhere to go (true: the response is not delivered).
    func failoverReceived(_ response: SIPResponse, on key: SIPTransactionKey) -> Bool {
        guard var failover = failovers[key] else { return false }
        if response.statusCode == 503, !failover.remaining.isEmpty {
            return failOver(key, failure: .finalResponse(statusCode: 503))
        }
        if !failover.answered {
            failover.answered = true
            failover.timer?.cancel()
            failover.timer = nil
            failovers[key] = failover
            if serverPins[failover.pin] != failover.current {
                logger.debug("\(failover.pin.host): \(failover.current) answered")
                serverPins[failover.pin] = failover.current
            }
        }
        return false
    }

    /// The transaction `key` failed (a transport error, a timeout, a 503): its request goes to
    /// the next target, a new transaction; the old one is left to end unheard. False when
    /// there is nowhere else to go (the failure is then the owner's).
    func failOver(_ key: SIPTransactionKey, failure: SIPFailure) -> Bool {
        guard let failover = failovers.removeValue(forKey: key) else { return false }
        failover.timer?.cancel()
        if serverPins[failover.pin] == failover.current { serverPins[failover.pin] = nil }
        guard !failover.remaining.isEmpty, let (owner, request) = clientOwners[key] else { return false }
        clientOwners[key] = nil
        logger.info("\(request.method) to \(failover.current) failed (\(failure)): trying \(failover.remaining[0])")
        attempt(
            request, owner: owner, targets: failover.remaining[...], pin: failover.pin, originalBranch: failover.originalBranch,
            failure: failure)
        return true
    }

    /// A CANCEL for an INVITE that failed over carries the branch the INVITE now has.
    func rebranchedCancel(_ request: SIPRequest) -> SIPRequest {
        guard request.method == .cancel, var via = try? request.headers.topVia(), let sent = via.branch,
            let branch = rebranchedInvites[sent]
        else { return request }
        var request = request
        via.parameters.set("branch", branch)
        request.headers.replaceFirst("via", with: via.description)
        return request
    }
}
