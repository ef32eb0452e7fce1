import Logging

extension LogHandler {
    /// The metadata an event is written with: the handler's own, then its provider's, then the call's;
    /// a later source wins a key (the order swift-log's own handlers use).
    package func mergedMetadata(_ explicit: Logger.Metadata?) -> Logger.Metadata {
        var merged = metadata
        if let provided = metadataProvider?.get() {
            merged.merge(provided) { _, provided in provided }
        }
        if let explicit {
            merged.merge(explicit) { _, explicit in explicit }
        }
        return merged
    }
}
