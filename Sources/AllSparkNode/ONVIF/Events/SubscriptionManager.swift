/// One PullPoint subscription at `/onvif/subscription/<id>`: PullMessages (a long poll up to
/// its Timeout, capped at `longestPull`), Renew, Unsubscribe and SetSynchronizationPoint.
struct SubscriptionManager: Sendable {
    let subscriptions: PullPointSubscriptions
    let id: String
    var nowMs: @Sendable () -> Int64 = { WallClock.nowMs() }

    static let preAuthOperations: Set<String> = []
    static let longestPullMs: Int64 = 60_000
    static let mostMessages = 100

    func respond(to request: SOAPRequest) async throws(SOAPFault) -> String {
        let operation = request.operation
        let name = request.operationName
        do {
            switch name {
            case "PullMessages":
                return try await pull(operation)
            case "Renew":
                let now = nowMs()
                let lifetime = try EventService.lifetime(operation.child("TerminationTime")?.trimmedText, nowMs: now)
                let terminationMs = try subscriptions.renew(id, lifetimeMs: lifetime, nowMs: now)
                // WS-BaseNotification's order: TerminationTime, then CurrentTime.
                return "<wsnt:RenewResponse><wsnt:TerminationTime>\(WallClock.iso8601(ms: terminationMs))</wsnt:TerminationTime>"
                    + "<wsnt:CurrentTime>\(WallClock.iso8601(ms: now))</wsnt:CurrentTime></wsnt:RenewResponse>"
            case "Unsubscribe":
                try subscriptions.unsubscribe(id)
                return "<wsnt:UnsubscribeResponse/>"
            case "SetSynchronizationPoint":
                try subscriptions.synchronize(id, nowMs: nowMs())
                return "<tev:SetSynchronizationPointResponse/>"
            default:
                throw SOAPFault.actionNotSupported(name)
            }
        } catch is PullPointSubscriptions.Refusal {
            throw SOAPFault.invalidArgument("ter:ResourceUnknown", "no such subscription: it ended, expired or never was")
        } catch let fault as SOAPFault {
            throw fault
        } catch {
            throw SOAPFault.malformed("\(error)")
        }
    }

    /// Answers at once with what is queued; with nothing queued, waits for a message, the
    /// subscription's end or the timeout, whichever comes first.
    private func pull(_ operation: XMLNode) async throws -> String {
        let timeoutText = operation.child("Timeout")?.trimmedText ?? "PT0S"
        guard let asked = XMLDuration.milliseconds(timeoutText) else {
            throw SOAPFault.invalidArgument("ter:InvalidTimeout", "Timeout is not a duration (PT60S)")
        }
        let limitText = operation.child("MessageLimit")?.trimmedText ?? "\(Self.mostMessages)"
        guard let limit = Int(limitText), limit >= 0 else {
            throw SOAPFault.invalidArgument("ter:InvalidMessageLimit", "MessageLimit is not a whole number")
        }
        let deadline = ContinuousClock.now + .milliseconds(min(asked, Self.longestPullMs))
        while true {
            let seen = subscriptions.updates.version
            let pulled = try subscriptions.pull(id, limit: min(max(limit, 1), Self.mostMessages), nowMs: nowMs())
            let remaining = deadline - ContinuousClock.now
            if !pulled.messages.isEmpty || remaining <= .zero || Task.isCancelled {
                return "<tev:PullMessagesResponse>" + EventService.times(nowMs: nowMs(), terminationMs: pulled.terminationMs, prefix: "tev")
                    + pulled.messages.map(EventXML.notification).joined() + "</tev:PullMessagesResponse>"
            }
            _ = await subscriptions.updates.wait(after: seen, timeout: remaining)
        }
    }
}
