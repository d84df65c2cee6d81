/// The largest request body any route reads (PUT /api/config and the fleet routes, 64 KiB;
/// POST /api/holds takes 16 KiB). A request that announces more (Content-Length) is
/// answered 413 naming the limit before one byte of its body is read, and its connection
/// closed; a chunked body that grows past it ends its connection. Each route refuses more
/// than its own limit with 413 too (`Request.collectBody(limit:)`).
enum RequestBodyLimit {
    static let maximumBytes = 64 * 1024

    static func refusal(announced: Int) -> String {
        "the request body of \(announced) bytes is over \(maximumBytes) bytes, the largest any route takes (request body limit)"
    }
}
