/// Hold placements from the API, one at a time. Placing a hold reads and writes the holds
/// file under the store's lock, a lock the recorder and every status answer also take; a
/// burst of requests at once would each block a thread of the few the node has on that
/// lock (two on a two-core box), stalling every other request. Queued here, the requests
/// wait without a thread, and one at most waits on the lock.
actor HoldPlacementQueue {
    func place(_ request: HoldRequest, in store: ChunkStore) throws -> HoldPlacement {
        try store.placeHold(request)
    }
}
