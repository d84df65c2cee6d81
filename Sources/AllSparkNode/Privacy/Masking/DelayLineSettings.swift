extension DelayLineMasker {
    /// How a delay line holds, searches and masks frames.
    public struct Settings: Sendable, Equatable {
        /// Frames the delay line may hold: the lookback and the longest search it rides
        /// out without waiting. Picture buffers are made only as frames are held at once.
        public var capacity: Int
        /// How long a face stays masked after the detector last found it, unless its region
        /// is unchanged (then longer). Bridges searches that miss a face now and then.
        public var holdMs: Int64
        /// Growth of every box per side, as a fraction of its size: hair, ears and chin
        /// that detectors leave out.
        public var marginPerSide: Double
        public var style: MaskStyle
        public var blocksAcross: Int
        /// Search every frame, in order, instead of the newest: nothing the detector can
        /// find escapes, and a live source loses the frames detection cannot keep up with.
        public var searchesEveryFrame: Bool
        /// Search only where the picture changed since searches last looked there (a fixed
        /// camera's background is mostly still), in small regions. Off: every search takes
        /// `SearchPlan`'s turn (the whole frame or an edge window).
        public var searchesChangedRegions: Bool
        /// Where much changed (a busy scene: the frame's turn, not a few small regions), search
        /// only every this many frames. The frames between wait for the next search (one frame
        /// more of live latency at 2), and a face it finds is masked back into them along the
        /// motion, as for any face found late: the privacy of a search of every frame, at a
        /// fraction of its cost. 1 searches every frame detection has time for.
        public var busySearchStride: Int
        /// The stride in time at the source's rate, and half a frame more: a frame further than
        /// this from the last search is searched itself however near in number, so a source
        /// that lost frames (a box short of CPU) sheds frames rather than carry masks across
        /// its gaps.
        public var busySearchSpanMs: Int64
        /// The detector's widest input (`privacyDetectionWidth`): the plan's regions and the
        /// changed regions' sizes follow from it.
        public var minimumRegionWidth: Int
        /// Thumbnails for tracking are at most this wide.
        public var trackingWidth: Int
        /// How far past a frame searches must have looked before it leaves, while its
        /// buffer is not needed: a face the detector finds this late is still masked back
        /// to where it came in. It adds this much to the live latency.
        public var lookbackMs: Int64
        /// Mask the band beside whatever is crossing an edge of the picture (`EdgeGuard`): a face
        /// walking in is masked before a search can find it, without waiting for later frames.
        public var guardsEdges: Bool
        /// For a real-time source (a camera, a paced file): how long after a frame's capture
        /// `push` may wait for the search in flight before it returns (half a frame interval;
        /// 0 never waits). The recording thread is idle until the next frame anyway, and the
        /// frames that search covers then leave now, not with the next frame: a frame interval
        /// less live latency.
        public var searchWaitAfterCaptureMs: Int64
        var flow: BoxFlow.Settings

        /// The default lookback: a search of a frame two frames later at 30 fps (66.7 ms; 60
        /// so that capture-time jitter cannot make it three). A face that comes into view
        /// mid-picture by degrees (turning from profile, stepping out from behind something)
        /// is often found by the net only a search or two after its first frame; without a
        /// lookback that first frame left with the search that missed it (issue 60: 2 of 22
        /// faces at 1080p, none with 60 ms; 34 ms was not enough). It costs about two frames
        /// of live latency, and no CPU: the searches are the same. Faces walking in at an
        /// edge are the edge guard's, without waiting.
        public static let defaultLookbackMs: Int64 = 60
        /// The default busy search stride: half the searches of a busy scene (issue 40), for
        /// 33 ms more live latency in it.
        public static let defaultBusySearchStride = 2
        /// Time a search may take on a busy machine before frames wait for it.
        static let searchAllowanceMs: Int64 = 400

        /// Frames held at most at `fps`: the lookback and a search's allowance, and one more.
        public static func capacity(lookbackMs: Int64, fps: Double) -> Int {
            let heldMs = Double(lookbackMs + searchAllowanceMs)
            return max(4, Int((heldMs * max(fps, 1) / 1000).rounded(.up)) + 1)
        }

        /// - Parameter capacity: nil for `capacity(lookbackMs:fps:)`.
        public init(
            capacity: Int? = nil, fps: Double = 30, holdMs: Int64 = 1000, searchesEveryFrame: Bool = false, marginPerSide: Double = 0.2,
            style: MaskStyle = .mosaic, blocksAcross: Int = 6, searchesChangedRegions: Bool = true,
            minimumRegionWidth: Int = 640, trackingWidth: Int = 480, lookbackMs: Int64 = Settings.defaultLookbackMs,
            guardsEdges: Bool = true, busySearchStride: Int = Settings.defaultBusySearchStride, realTimeSource: Bool = false
        ) {
            searchWaitAfterCaptureMs = realTimeSource ? Int64((500 / max(fps, 0.01)).rounded()) : 0
            self.busySearchStride = busySearchStride
            busySearchSpanMs = Int64(((Double(busySearchStride) + 0.5) * 1000 / max(fps, 1)).rounded(.up))
            self.lookbackMs = lookbackMs
            self.guardsEdges = guardsEdges
            self.minimumRegionWidth = minimumRegionWidth
            self.searchesChangedRegions = searchesChangedRegions
            self.capacity = capacity ?? Self.capacity(lookbackMs: lookbackMs, fps: fps)
            self.holdMs = holdMs
            self.searchesEveryFrame = searchesEveryFrame
            self.marginPerSide = marginPerSide
            self.style = style
            self.blocksAcross = blocksAcross
            self.trackingWidth = trackingWidth
            self.flow = BoxFlow.Settings()
        }
    }
}
