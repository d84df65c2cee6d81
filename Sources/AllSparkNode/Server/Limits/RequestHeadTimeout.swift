/// How long a new connection may take to send its first whole request head. One that
/// sends nothing, or a head a byte at a time (slowloris), is answered 408 naming the limit
/// and closed (`ConnectionGuardHandler`). Later requests on a kept-alive connection are
/// `IdleConnectionTimeout`'s.
enum RequestHeadTimeout {
    static let seconds: Int64 = 10

    static var refusal: String {
        "no whole request head within \(seconds) s of connecting (the request head timeout); the connection is closed"
    }
}
