/// The Events service's XML: notification messages and the topic set GetEventProperties
/// describes.
enum EventXML {
    static let concreteSetDialect = "http://www.onvif.org/ver10/tev/topicExpression/ConcreteSet"

    static func notification(_ message: EventMessage) -> String {
        let topic = message.topic
        let source = topic.sourceItems.map { simpleItem($0.name, $0.value) }.joined()
        let data = simpleItem(topic.dataItem.name, topic.value(message.on))
        return "<wsnt:NotificationMessage><wsnt:Topic Dialect=\"\(concreteSetDialect)\">\(topic.rawValue)</wsnt:Topic>"
            + "<wsnt:Message><tt:Message UtcTime=\"\(WallClock.iso8601(ms: message.utcMs))\" PropertyOperation=\"\(message.operation.rawValue)\">"
            + "<tt:Source>\(source)</tt:Source><tt:Data>\(data)</tt:Data></tt:Message></wsnt:Message></wsnt:NotificationMessage>"
    }

    static func simpleItem(_ name: String, _ value: String) -> String {
        "<tt:SimpleItem Name=\"\(XMLText.escape(name))\" Value=\"\(XMLText.escape(value))\"/>"
    }

    /// `wstop:TopicSet`: each topic as a tree of elements, the first carrying the topic
    /// namespace's prefix, the leaf marked `wstop:topic` with its message description.
    static func topicSet() -> String {
        var roots: [(prefix: String, name: String, topics: [EventTopic])] = []
        for topic in EventTopic.allCases {
            let root = topic.path[0]
            if let index = roots.firstIndex(where: { $0.prefix == topic.prefix && $0.name == root }) {
                roots[index].topics.append(topic)
            } else {
                roots.append((topic.prefix, root, [topic]))
            }
        }
        return "<wstop:TopicSet>"
            + roots.map { root in
                "<\(root.prefix):\(root.name)>" + branch(root.topics.map { Array($0.path.dropFirst()) }, topics: root.topics)
                    + "</\(root.prefix):\(root.name)>"
            }.joined() + "</wstop:TopicSet>"
    }

    /// The elements under one node of the tree: `paths[i]` is what is left of `topics[i]`'s path.
    private static func branch(_ paths: [[String]], topics: [EventTopic]) -> String {
        var names: [String] = []
        for path in paths where !names.contains(path[0]) { names.append(path[0]) }
        return names.map { name in
            let below = zip(paths, topics).filter { $0.0[0] == name }
            if below.count == 1, below[0].0.count == 1 {
                return "<\(name) wstop:topic=\"true\">\(description(below[0].1))</\(name)>"
            }
            return "<\(name)>" + branch(below.map { Array($0.0.dropFirst()) }, topics: below.map { $0.1 }) + "</\(name)>"
        }.joined()
    }

    private static func description(_ topic: EventTopic) -> String {
        let source = topic.sourceItems.map { "<tt:SimpleItemDescription Name=\"\($0.name)\" Type=\"\($0.type)\"/>" }.joined()
        return "<tt:MessageDescription IsProperty=\"true\"><tt:Source>\(source)</tt:Source>"
            + "<tt:Data><tt:SimpleItemDescription Name=\"\(topic.dataItem.name)\" Type=\"\(topic.dataItem.type)\"/></tt:Data></tt:MessageDescription>"
    }
}
