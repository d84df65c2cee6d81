import CFFmpeg

/// libav prints to stderr by default; the node keeps only its warnings and errors.
public enum LibavLogging {
    /// - Parameter toJournal: stderr is journald's stream: each message becomes one line with
    ///   its syslog priority, as the node's own (`JournalLogHandler`).
    public static func configure(verbose: Bool, toJournal: Bool = false) {
        av_log_set_level(verbose ? AV_LOG_INFO : AV_LOG_ERROR)
        if toJournal { allspark_av_log_to_journal() }
    }
}
