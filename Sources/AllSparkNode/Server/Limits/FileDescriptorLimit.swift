import Glibc

/// The open-file limit (RLIMIT_NOFILE), raised at start from its soft value to the hard
/// one. systemd and most shells give a process 1,024 open files by default, and every
/// connection is one: 1,000 idle connections would leave the node none for its chunks, its
/// store's files and the token holder's own connection. The hard limit (systemd: 524,288)
/// is what the system lets the process have; `ConnectionLimit` keeps connections well below.
public enum FileDescriptorLimit {
    /// Raises the soft limit to the hard one; returns the soft limit now in force (nil when unreadable).
    @discardableResult
    public static func raiseToHard() -> UInt64? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { return UInt64(raised.rlim_cur) }
        }
        return UInt64(limit.rlim_cur)
    }
}
