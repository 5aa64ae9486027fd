import Foundation

/// The toolkit options of one key (or of a whole key set): lenient scalars, date strategy, defaults,
/// element policy, unknown enum fallback and value transform.
///
/// Declare them with the modifiers on ``Key`` and ``KeySet``; every backend reads them from
/// ``KeyEntry/options``, where the key's own options are already merged over its key set's.
///
/// ```swift
/// KeySet(.remote) {
///     Key(\.age, "age").lenient().default(ifMissing: 0, ifNull: 0, ifInvalid: -1)
///     Key(\.createdAt, "created_at").dates(.flexible)
///     Key(\.tags, "tags").elements(.remove)
/// }
/// .lenient()
/// ```
package struct KeyOptions: Sendable {
    /// Whether scalars decode leniently (see ``LenientScalar``); `nil` inherits from the key set, then
    /// the decoder's ``DecodingOptions``.
    package internal(set) var isLenient: Bool?
    /// How `Date`, `Date?` and `[Date]` properties are read and written.
    package internal(set) var dates: DateCodingStrategy?
    /// The value used when no key is present; it has the property's (unwrapped) type.
    package var defaultIfMissing: Any? { defaultIfMissingBox?.value }
    /// The value used when the value is `null`.
    package var defaultIfNull: Any? { defaultIfNullBox?.value }
    /// The value used when the value is present but does not decode.
    package var defaultIfInvalid: Any? { defaultIfInvalidBox?.value }
    /// What to do with failing elements of an array or dictionary property.
    package internal(set) var elementPolicy: ElementPolicy?
    /// The case used for an enum raw value no case has.
    package var unknownCaseFallback: Any? { unknownCaseFallbackBox?.value }
    /// The conversion between the property's value and the stored one.
    package internal(set) var transform: AnyValueTransform?
    /// Whether ``dates`` is the source's default strategy rather than a declared one: a `Date` written
    /// back to a server then takes the form of the server's own values (see ``ServerDateFormat``).
    package internal(set) var datesFollowServer = false

    var defaultIfMissingBox: SendableValue?
    var defaultIfNullBox: SendableValue?
    var defaultIfInvalidBox: SendableValue?
    var unknownCaseFallbackBox: SendableValue?

    /// No options.
    ///
    /// ```swift
    /// KeyOptions().isEmpty   // true
    /// ```
    package init() {}

    /// Whether no option is set.
    package var isEmpty: Bool {
        isLenient == nil && dates == nil && defaultIfMissingBox == nil && defaultIfNullBox == nil
            && defaultIfInvalidBox == nil && elementPolicy == nil && unknownCaseFallbackBox == nil && transform == nil
    }

    /// Whether a date strategy is the only option set: the remote source's default for every `Date`,
    /// read on a path of its own.
    package var hasOnlyDates: Bool {
        dates != nil && isLenient == nil && defaultIfMissingBox == nil && defaultIfNullBox == nil
            && defaultIfInvalidBox == nil && elementPolicy == nil && unknownCaseFallbackBox == nil && transform == nil
    }

    /// Whether encoding must look at the options (a transform or a date strategy).
    package var affectsEncoding: Bool { transform != nil || dates != nil }

    /// These options, with unset ones taken from `base` (a key set's options) where they apply to a
    /// property storing `storedType`: lenience to scalars, dates to `Date`, element policies to
    /// collections. Other properties stay without options, on the fast path.
    ///
    /// A key set's element fallback that is no element of this property's collection is left out, with a
    /// problem added to `problems`.
    func merged(
        over base: KeyOptions, storedType: Any.Type, keyPath: AnyKeyPath, problems: inout [KeySetProblem],
        source: CodingSource
    ) -> KeyOptions {
        var merged = self
        let readType = transform?.encodedType ?? storedType
        if isLenient == nil, KeyOptions.isLenientType(storedType) || KeyOptions.isLenientType(readType) {
            merged.isLenient = base.isLenient
        }
        if dates == nil, storedType == Date.self || storedType == [Date].self { merged.dates = base.dates }
        if elementPolicy == nil, let collection = storedType as? any ElementPolicyDecodable.Type {
            if case .fallback(let value) = base.elementPolicy, !collection.acceptsElement(value) {
                problems.append(
                    KeySetProblem(
                        .optionDoesNotFit(
                            "KeySet.elements(.fallback(\(value))): \(value) (\(type(of: value))) is not an element of "
                                + "\(storedType)",
                            fix: "give this key its own elements(_:) policy"),
                        source: source, keyPath: "\(keyPath)", key: nil))
                return merged
            }
            merged.elementPolicy = base.elementPolicy
        }
        return merged
    }
}

extension KeyOptions {
    /// Whether lenient decoding changes how `type` decodes: a scalar, an enum stored by a scalar raw
    /// value, or a collection of them.
    static func isLenientType(_ type: Any.Type) -> Bool {
        LenientValue.isScalar(type) || (type as? any ElementPolicyDecodable.Type)?.hasLenientElements == true
    }
}
