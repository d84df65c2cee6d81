import CFFmpeg

/// libav prints to stderr by default; the node keeps only its warnings and errors.
public enum LibavLogging {
    public static func configure(verbose: Bool) {
        av_log_set_level(verbose ? AV_LOG_INFO : AV_LOG_ERROR)
    }
}
