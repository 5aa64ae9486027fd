import Foundation

/// Receives the values of a key set's entries while a model encodes: a Foundation encoder's keyed
/// container, the bound parameters of a SQLite statement, a JSON writer.
package protocol KeySetEncodingSink: AnyObject {
    /// Writes the value of entry `index`.
    func encode<Value: Encodable>(_ value: Value, at index: Int) throws
    /// Entry `index` is an optional holding `nil`.
    func encodeNil(at index: Int) throws
    /// The form a server gave the date of entry `index`, when the encoder was handed the server's
    /// forms (``ServerDateFormats``) and the entry follows the server; `nil` otherwise.
    func serverDateFormat(at index: Int) -> ServerDateFormat?
}

extension KeySetEncodingSink {
    package func serverDateFormat(at index: Int) -> ServerDateFormat? { nil }
}
