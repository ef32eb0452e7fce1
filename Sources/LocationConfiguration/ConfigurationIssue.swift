import GeoClueConfiguration

/// One problem found in a configuration or manifest file, located by file, line and key (SEMANTICS M1, §11).
///
/// The same shape serves errors and warnings, and GeoClue's files (``GeoClueIssue``) alike: its `description` is
/// the one log line that tells the person which file to open and what to write there, e.g.
/// `apps.d/com.ex.toml:3: key NSLocationWhenInUseUsageDescription: expected a string, found integer`.
/// (It is not called a "diagnostic" because SEMANTICS §7 uses that word for session flags.)
package typealias ConfigurationIssue = GeoClueIssue
