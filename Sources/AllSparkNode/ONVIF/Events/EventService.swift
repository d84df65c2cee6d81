/// ONVIF's event service (ver10 events wsdl) at `/onvif/event_service`: the topics the node
/// raises (GetEventProperties) and PullPoint subscriptions to them. Basic notification (the
/// device posting to a consumer's URL) is not offered: a camera that dials out to any
/// address a client names is a way through firewalls.
struct EventService: ONVIFService {
    let subscriptions: PullPointSubscriptions
    var nowMs: @Sendable () -> Int64 = { WallClock.nowMs() }

    static let preAuthOperations: Set<String> = ["GetServiceCapabilities"]

    static let capabilities =
        "<tev:Capabilities WSSubscriptionPolicySupport=\"false\" WSPullPointSupport=\"true\" WSPausableSubscriptionManagerInterfaceSupport=\"false\""
        + " MaxNotificationProducers=\"0\" MaxPullPoints=\"\(PullPointSubscriptions.maximumCount)\" PersistentNotificationStorage=\"false\"/>"

    func respond(to request: SOAPRequest, at endpoint: ONVIFEndpoint) throws(SOAPFault) -> String {
        let name = request.operationName
        switch name {
        case "GetServiceCapabilities":
            return "<tev:GetServiceCapabilitiesResponse>\(Self.capabilities)</tev:GetServiceCapabilitiesResponse>"
        case "GetEventProperties":
            return "<tev:GetEventPropertiesResponse>"
                + "<tev:TopicNamespaceLocation>http://www.onvif.org/onvif/ver10/topics/topicns.xml</tev:TopicNamespaceLocation>"
                + "<wsnt:FixedTopicSet>true</wsnt:FixedTopicSet>" + EventXML.topicSet()
                + "<wsnt:TopicExpressionDialect>\(EventXML.concreteSetDialect)</wsnt:TopicExpressionDialect>"
                + "<wsnt:TopicExpressionDialect>http://docs.oasis-open.org/wsn/t-1/TopicExpression/Concrete</wsnt:TopicExpressionDialect>"
                + "<tev:MessageContentFilterDialect>http://www.onvif.org/ver10/tev/messageContentFilter/ItemFilter</tev:MessageContentFilterDialect>"
                + "<tev:MessageContentSchemaLocation>http://www.onvif.org/onvif/ver10/schema/onvif.xsd</tev:MessageContentSchemaLocation>"
                + "</tev:GetEventPropertiesResponse>"
        case "CreatePullPointSubscription":
            return try createPullPoint(request.operation, at: endpoint)
        default:
            throw SOAPFault.actionNotSupported(name)
        }
    }

    private func createPullPoint(_ operation: XMLNode, at endpoint: ONVIFEndpoint) throws(SOAPFault) -> String {
        let now = nowMs()
        let lifetimeMs = try Self.lifetime(operation.child("InitialTerminationTime")?.trimmedText, nowMs: now)
        var filter: TopicFilter?
        if let expression = operation.child("Filter")?.child("TopicExpression")?.trimmedText, !expression.isEmpty {
            guard let parsed = TopicFilter(expression: expression) else {
                throw SOAPFault.invalidArgument("ter:InvalidTopicExpression", "the TopicExpression is not a ConcreteSet expression")
            }
            filter = parsed
        }
        let created: (id: String, terminationMs: Int64)
        do {
            created = try subscriptions.subscribe(lifetimeMs: lifetimeMs, filter: filter, nowMs: now)
        } catch {
            throw SOAPFault(
                code: .receiver, subcode: "ter:Action", detailSubcode: "ter:TooManySubscriptions",
                reason: "the node holds \(PullPointSubscriptions.maximumCount) subscriptions already; unsubscribe or let one expire")
        }
        return "<tev:CreatePullPointSubscriptionResponse><tev:SubscriptionReference>"
            + XMLText.element("wsa5:Address", endpoint.subscription(created.id)) + "</tev:SubscriptionReference>"
            + Self.times(nowMs: now, terminationMs: created.terminationMs, prefix: "wsnt")
            + "</tev:CreatePullPointSubscriptionResponse>"
    }

    /// An InitialTerminationTime or a Renew's TerminationTime, a duration or a time, as a
    /// lifetime from now; nil when absent.
    static func lifetime(_ text: String?, nowMs: Int64) throws(SOAPFault) -> Int64? {
        guard let text, !text.isEmpty else { return nil }
        if let ms = XMLDuration.milliseconds(text) { return ms }
        if let at = UsernameTokenCheck.parseTime(text), at > nowMs { return at - nowMs }
        throw SOAPFault.invalidArgument(
            "ter:UnacceptableTerminationTime", "the termination time is neither a duration (PT600S) nor a time still to come")
    }

    static func times(nowMs: Int64, terminationMs: Int64, prefix: String) -> String {
        "<\(prefix):CurrentTime>\(WallClock.iso8601(ms: nowMs))</\(prefix):CurrentTime>"
            + "<\(prefix):TerminationTime>\(WallClock.iso8601(ms: terminationMs))</\(prefix):TerminationTime>"
    }
}
