/// How many holds may be in force on one store at once. Each is a line of the holds file,
/// read and written whole under the store's lock at every change and checked against every
/// chunk: 10,000 requested in a row would make each change slower than the last while the
/// recorder waits for that lock. Incidents are counted in tens; past the limit a hold is
/// refused (409 naming it) until one is released or lapses.
public enum HoldCountLimit {
    public static let maximum = 1_000

    static var refusal: String {
        "\(maximum) holds are in force, the most one store keeps (hold count limit): release one first (DELETE /api/holds/{id} or `allspark-node hold release`)"
    }
}
