import CAvahi

/// Builds avahi's TXT string list from `entries`, hands it to `body` and frees it afterwards.
/// Returns `nil` (after freeing what was built) when avahi runs out of memory.
func withAvahiStringList<Result>(
    _ entries: [String], _ body: (UnsafeMutablePointer<AvahiStringList>?) -> Result
) -> Result? {
    var list: UnsafeMutablePointer<AvahiStringList>?
    // avahi_string_list_add prepends, so add in reverse to keep the caller's order.
    for entry in entries.reversed() {
        guard let longer = avahi_string_list_add(list, entry) else {
            avahi_string_list_free(list)
            return nil
        }
        list = longer
    }
    defer { avahi_string_list_free(list) }
    return body(list)
}

/// A resolved TXT record's `key=value` entries (an entry without `=` maps to "").
enum AvahiTXTRecord {
    static func pairs(_ list: UnsafeMutablePointer<AvahiStringList>?) -> [String: String] {
        var pairs: [String: String] = [:]
        var entry = list
        while let current = entry {
            let bytes = UnsafeBufferPointer(start: avahi_string_list_get_text(current), count: avahi_string_list_get_size(current))
            let text = String(decoding: bytes, as: UTF8.self)
            let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            pairs[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
            entry = avahi_string_list_get_next(current)
        }
        return pairs
    }
}
