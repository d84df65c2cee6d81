/// Requests for the freshest footage: "every frame captured up to T, in published chunks".
/// The recording thread ends the chunk being filled early when it holds frames up to T (the
/// next frame then starts a chunk with an IDR, as at every boundary), and marks requests
/// done once every frame before a published chunk boundary is on disk.
struct FreshFootageRequests {
    private struct Request {
        let id: Int
        let throughMs: Int64
        /// Set once a frame after `throughMs` reached the encoder.
        var triggered = false
        /// The chunk that was ended early for this request, if one was.
        var cutStamp: String?
        /// Files of the chunk ended early, once the request is done.
        var result: [String]?
    }

    private var requests: [Request] = []
    private var nextID = 0
    /// Every frame captured before this time is in a published chunk.
    private(set) var publishedBeforeMs: Int64 = .min
    /// The earliest `throughMs` not yet triggered: the per-frame check is one comparison.
    private var earliestWaitingMs: Int64 = .max

    init() {
        requests.reserveCapacity(8)
    }

    /// - Returns: the request's id, or nil when its footage is already published.
    mutating func add(throughMs: Int64) -> Int? {
        guard throughMs >= publishedBeforeMs else { return nil }
        nextID += 1
        requests.append(Request(id: nextID, throughMs: throughMs))
        earliestWaitingMs = min(earliestWaitingMs, throughMs)
        return nextID
    }

    /// Called for each frame reaching the encoder. Returns the chunk's stamp to end early
    /// (this frame then starts the next chunk), or nil to go on.
    mutating func chunkToEnd(beforeFrameAt captureTimeMs: Int64, filling: ChunkPlan?) -> String? {
        guard captureTimeMs > earliestWaitingMs else { return nil }
        var latestDue = Int64.min
        for request in requests where !request.triggered && request.throughMs < captureTimeMs {
            latestDue = max(latestDue, request.throughMs)
        }
        // The chunk being filled holds frames up to the time asked for, and would not end here anyway.
        var cut: String?
        if let filling, filling.startMs <= latestDue, !filling.isOver(at: captureTimeMs) { cut = filling.stamp }
        earliestWaitingMs = .max
        for index in requests.indices where !requests[index].triggered {
            if requests[index].throughMs < captureTimeMs {
                requests[index].triggered = true
                requests[index].cutStamp = cut
            } else {
                earliestWaitingMs = min(earliestWaitingMs, requests[index].throughMs)
            }
        }
        return cut
    }

    /// Every frame before `beforeMs` is now in published chunks; `record` is the chunk just published.
    mutating func published(before beforeMs: Int64, record: ChunkRecord?) {
        publishedBeforeMs = max(publishedBeforeMs, beforeMs)
        for index in requests.indices where requests[index].result == nil && requests[index].throughMs < publishedBeforeMs {
            if let record, requests[index].cutStamp == record.stamp {
                requests[index].result = [record.fileName, record.timestampsFileName]
            } else {
                requests[index].result = []
            }
        }
    }

    /// The files cut early for a finished request (removing it), or nil while it waits.
    mutating func take(_ id: Int) -> [String]? {
        guard let index = requests.firstIndex(where: { $0.id == id }), let result = requests[index].result else { return nil }
        requests.remove(at: index)
        return result
    }

    /// Forgets a request whose asker stopped waiting.
    mutating func cancel(_ id: Int) {
        requests.removeAll { $0.id == id }
        earliestWaitingMs = requests.filter { !$0.triggered }.map(\.throughMs).min() ?? .max
    }
}
