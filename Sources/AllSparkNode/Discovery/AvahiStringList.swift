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
