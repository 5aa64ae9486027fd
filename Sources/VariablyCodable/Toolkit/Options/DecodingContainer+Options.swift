import Foundation

// The toolkit's decoding path: defaults, lenient scalars, dates, element policies, unknown enum
// cases, transforms and the report, applied in one place so that every backend gets them.

extension DecodingContainer {
    /// Handles an error of the plain path: a decoder that asks for lenient scalars gets a second, lenient
    /// attempt (a value that decodes plainly needs no conversion), anything else is wrapped.
    ///
    /// - Throws: ``VariablyCodingError``.
    @usableFromInline
    func recover<Value: Decodable>(from error: any Error, _ type: Value.Type, entry index: Int, isRequired: Bool)
        throws -> Value?
    {
        if error is DecodingError, KeyOptions.isLenientType(Value.self), decodingOptions?.isLenient == true {
            return try decodeApplyingOptions(Value.self, entry: index, isRequired: isRequired)
        }
        throw wrap(error, entry: index)
    }

    /// Decodes entry `index` applying its ``KeyOptions`` and the decoder's ``DecodingOptions``.
    ///
    /// - Returns: The value; `nil` only when `isRequired` is `false` and the value is missing or null
    ///   without a default.
    /// - Throws: ``VariablyCodingError``.
    @usableFromInline
    func decodeApplyingOptions<Value: Decodable>(_ type: Value.Type, entry index: Int, isRequired: Bool) throws
        -> Value?
    {
        // A `Date` with a strategy and nothing else (every remote date by default): read at once, without
        // copying its entry, the decoder's options, the value's path or a cast through `Any`, which cost
        // more than the date.
        if Value.self == Date.self, let dates = keySet.entryDatesAlone[index], backend.contains(entry: index) {
            do {
                guard let date = try decodeDate(with: dates, entry: index, path: { valuePath(ofEntry: index) }) else {
                    return isRequired ? try decodePlainly(Value.self, entry: index, isRequired: true) : nil
                }
                return unsafeBitCast(date, to: Value.self)
            } catch {
                throw wrap(error, entry: index)
            }
        }
        let entry = keySet.entries[index]
        do {
            // Without key options, this is a lenient retry asked for by the decoder (see `recover`).
            if entry.options.isEmpty && !(KeyOptions.isLenientType(Value.self) && decodingOptions?.isLenient == true) {
                return isRequired
                    ? try backend.decode(Value.self, entry: index)
                    : try backend.decodeIfPresent(Value.self, entry: index)
            }
            return try decodeWithOptions(Value.self, entry: entry, index: index, isRequired: isRequired)
        } catch {
            throw wrap(error, entry: index)
        }
    }

    // The decoder's options and the value's coding path cost a dictionary lookup and an allocation:
    // they are only computed where a value needs more than a plain decode.
    func decodeWithOptions<Value>(
        _ type: Value.Type, entry: KeyEntry<Model>, index: Int, isRequired: Bool
    ) throws -> Value? {
        let record = { (kind: DecodeEvent.Kind, path: [any CodingKey], detail: String?, error: () -> DecodingError) in
            try self.record(kind, entry: entry, codingPath: path, detail: detail, error: error)
        }
        let options = entry.options
        let path = { self.valuePath(of: entry) }
        guard backend.contains(entry: index) else {
            return try decodeMissing(Value.self, entry: entry, index: index, isRequired: isRequired)
        }
        // A `Date` with a strategy and nothing else (every remote date by default): read at once, without
        // the decoder's options, the value's path or a cast through `Any`, which cost more than the date.
        if Value.self == Date.self, let dates = options.dates, options.hasOnlyDates {
            guard let date = try decodeDate(with: dates, entry: index, path: path) else {
                return isRequired ? try decodePlainly(Value.self, entry: index, isRequired: true) : nil
            }
            return unsafeBitCast(date, to: Value.self)
        }
        // Most values are well-formed: decode them plainly first, which also tells `null` apart, and
        // convert, filter or fall back only when that fails. Transforms and date strategies read
        // another type than the property's: a transform asks whether the value is `null` first, a
        // date strategy finds out while reading.
        let readsDate = options.dates != nil && Value.self == Date.self
        var isNull = false
        if options.transform != nil || (options.dates != nil && Value.self == [Date].self) {
            isNull = try backend.decodeIfPresent(PresenceProbe.self, entry: index) == nil
        } else if readsDate {
            // Reading a date tells `null` apart by itself (see `decodePresent`).
        } else if let value = decodingOptions?.report == nil
            ? try? decodePlainly(Value.self, entry: index, isRequired: false)
            : DecodeReport.speculatively({ try? decodePlainly(Value.self, entry: index, isRequired: false) })
        {
            // With a report, what a nested model recorded before this attempt failed is dropped: the
            // fallback below decodes it again and records it once.
            return value
        } else {
            // nil (`null`) or an error: `PresenceProbe` accepts any value, so it tells them apart.
            isNull = (try? backend.decodeIfPresent(PresenceProbe.self, entry: index)) == nil
        }
        var pending: [PendingEvent] = []
        var value: Value?
        if !isNull {
            do {
                value = try decodePresent(Value.self, entry: entry, index: index, path: path, pending: &pending)
                isNull = value == nil
            } catch {
                return try decodeFallback(Value.self, entry: entry, index: index, after: error)
            }
        }
        if isNull {
            if let value = options.defaultIfNull {
                try record(.defaultUsed(.null), path(), nil) {
                    DecodingError.valueNotFound(
                        Value.self, DecodingError.Context(codingPath: path(), debugDescription: "The value is null."))
                }
                return try declared(value, as: Value.self)
            }
            return isRequired ? try decodePlainly(Value.self, entry: index, isRequired: true) : nil
        }
        for event in pending {
            try record(event.kind, event.codingPath, event.detail) { event.error }
        }
        return value
    }

    /// The declared default of a value the container does not hold, or `nil` (or the plain decode's
    /// error, when required) without one.
    private func decodeMissing<Value>(
        _ type: Value.Type, entry: KeyEntry<Model>, index: Int, isRequired: Bool
    ) throws -> Value? {
        guard let value = entry.options.defaultIfMissing else {
            return isRequired ? try decodePlainly(Value.self, entry: index, isRequired: true) : nil
        }
        // What was seen instead, e.g. a parent that is not an object, goes to the report.
        let seen = backend.absenceDetail(entry: index)
        try self.record(.defaultUsed(.missing), entry: entry, codingPath: valuePath(of: entry), detail: seen) {
            DecodingError.keyNotFound(
                entry.paths[0].leaf,
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "No value for \(entry.key)\(seen.map { " (\($0))" } ?? "")."))
        }
        return try declared(value, as: Value.self)
    }

    /// The declared fallback of a present value that failed to decode with `error`: an unknown enum
    /// case's fallback, or the default for an invalid value; otherwise `error` itself.
    private func decodeFallback<Value>(
        _ type: Value.Type, entry: KeyEntry<Model>, index: Int, after error: any Error
    ) throws -> Value? {
        let options = entry.options
        let path = { self.valuePath(of: entry) }
        if let fallback = options.unknownCaseFallback, case DecodingError.dataCorrupted = error,
            let raw = try? backend.decode(JSONValue.self, entry: index),
            raw.stringValue != nil || raw.doubleValue != nil
        {
            try self.record(.unknownEnumCase(rawValue: raw.description), entry: entry, codingPath: path(), detail: nil)
            {
                error as! DecodingError
            }
            return try declared(fallback, as: Value.self)
        }
        if let value = options.defaultIfInvalid {
            try self.record(.defaultUsed(.invalid), entry: entry, codingPath: path(), detail: "\(error)") {
                error as? DecodingError
                    ?? DecodingError.dataCorrupted(
                        DecodingError.Context(codingPath: path(), debugDescription: "\(error)", underlyingError: error))
            }
            return try declared(value, as: Value.self)
        }
        throw error
    }

    /// A present value, through the first option that applies to its type; `nil` when a date strategy
    /// finds `null`.
    private func decodePresent<Value>(
        _ type: Value.Type, entry: KeyEntry<Model>, index: Int, path: () -> [any CodingKey],
        pending: inout [PendingEvent]
    ) throws -> Value? {
        let options = entry.options
        let asksLenience = options.isLenient ?? decodingOptions?.isLenient ?? false
        let isLenient = asksLenience && KeyOptions.isLenientType(Value.self)
        if let transform = options.transform {
            // Lenience applies to what is read: the transform's stored type.
            guard asksLenience, LenientValue.isScalar(transform.encodedType) else {
                return try transformed(transform.decode(from: backend, entry: index), as: Value.self)
            }
            let stored: Any
            if let plain = try? readStored(transform.encodedType, entry: index) {
                stored = plain
            } else {
                stored = try decodeLenientScalar(transform.encodedType, index: index, path: path, pending: &pending)
            }
            return try transformed(transform.decode(stored: stored), as: Value.self)
        }
        if let dates = options.dates {
            if Value.self == Date.self {
                return try decodeDate(with: dates, entry: index, path: path).map { try declared($0, as: Value.self) }
            }
            if Value.self == [Date].self {
                let raws = try backend.decode([JSONValue].self, entry: index)
                let list = try raws.enumerated().map { offset, raw in
                    try dates.date(from: raw, codingPath: path() + [AnyCodingKey(intValue: offset)])
                }
                return try declared(list, as: Value.self)
            }
        }
        if let collection = Value.self as? any ElementPolicyDecodable.Type {
            let onEvent = { (event: ElementEvent) in
                pending.append((event.kind, event.error.contextCodingPath, event.error, event.detail))
            }
            if isLenient,
                let decoded = try collection.decodeLeniently(
                    policy: options.elementPolicy ?? .fail, codingPath: path(),
                    using: { try backend.decode($0, entry: index) }, onEvent: onEvent)
            {
                return try declared(decoded, as: Value.self)
            }
            if let policy = options.elementPolicy {
                let decoded = try collection.decode(
                    policy: policy, using: { try backend.decode($0, entry: index) }, onEvent: onEvent)
                return try declared(decoded, as: Value.self)
            }
        }
        if isLenient, LenientValue.isScalar(Value.self) {
            return try declared(
                decodeLenientScalar(Value.self, index: index, path: path, pending: &pending), as: Value.self)
        }
        return try decodePlainly(Value.self, entry: index, isRequired: true)
    }

    /// A present date read with `dates`: a string or a number, else a property list's native date;
    /// `nil` for `null`.
    private func decodeDate(with dates: DateCodingStrategy, entry index: Int, path: () -> [any CodingKey]) throws
        -> Date?
    {
        // Ask for the likelier kind first: each failed attempt costs a thrown error. Each attempt also
        // answers `null` (nil), so no separate check is needed.
        let numbersFirst = dates.output == .secondsSince1970 || dates.output == .millisecondsSince1970
        if numbersFirst,
            case .success(let number) = Result(catching: { try backend.decodeIfPresent(Double.self, entry: index) })
        {
            return number.map(dates.date(fromNumber:))
        }
        if case .success(let text) = Result(catching: { try backend.decodeIfPresent(String.self, entry: index) }) {
            guard let text else { return nil }
            if let date = dates.date(from: text) { return date }
            return try dates.date(from: .string(text), codingPath: path())
        }
        if !numbersFirst,
            case .success(let number) = Result(catching: { try backend.decodeIfPresent(Double.self, entry: index) })
        {
            return number.map(dates.date(fromNumber:))
        }
        // Neither a string nor a number: a property list's native date, read as it is.
        do {
            return try backend.decodeIfPresent(Date.self, entry: index)
        } catch DecodingError.typeMismatch(_, let context) {
            throw DecodingError.typeMismatch(
                Date.self,
                DecodingError.Context(
                    codingPath: context.codingPath,
                    debugDescription: "\(context.debugDescription) Formats tried: \(dates.formatsTried).",
                    underlyingError: context.underlyingError))
        }
    }

    /// Entry `index` decoded as it is. `Value` is `Decodable` unless the key has a transform to a type
    /// that is not; such a value is read through its transform only, so here it only produces the
    /// errors for a missing or `null` value.
    private func decodePlainly<Value>(_ type: Value.Type, entry index: Int, isRequired: Bool) throws -> Value? {
        if let decodable = Value.self as? any Decodable.Type {
            return try decodePlainly(decodable, as: Value.self, entry: index, isRequired: isRequired)
        }
        guard try backend.decodeIfPresent(PresenceProbe.self, entry: index) != nil else {
            guard isRequired else { return nil }
            _ = try backend.decode(PresenceProbe.self, entry: index)  // keyNotFound when missing
            throw DecodingError.valueNotFound(
                Value.self,
                DecodingError.Context(
                    codingPath: valuePath(of: keySet.entries[index]), debugDescription: "The value is null."))
        }
        throw DecodingError.typeMismatch(
            Value.self,
            DecodingError.Context(
                codingPath: valuePath(of: keySet.entries[index]),
                debugDescription: "\(Value.self) is not Decodable and the \(source) key set gives it no transform."))
    }

    private func decodePlainly<Stored: Decodable, Value>(
        _ stored: Stored.Type, as type: Value.Type, entry index: Int, isRequired: Bool
    ) throws -> Value? {
        let value =
            isRequired
            ? try backend.decode(Stored.self, entry: index) : try backend.decodeIfPresent(Stored.self, entry: index)
        return try value.map { try declared($0, as: Value.self) }
    }

    /// Entry `index` read as `type`, a stored type that is not a `Decodable` generic parameter here.
    private func readStored<Stored: Decodable>(_ type: Stored.Type, entry index: Int) throws -> Any {
        try backend.decode(Stored.self, entry: index)
    }

    /// Entry `index` converted leniently to `type` (see ``LenientValue``), noting a coercion in `pending`.
    private func decodeLenientScalar(
        _ type: Any.Type, index: Int, path: () -> [any CodingKey], pending: inout [PendingEvent]
    ) throws -> Any {
        let raw = try backend.decode(JSONValue.self, entry: index)
        guard let (value, isCoerced) = try LenientValue.convert(raw, to: type, codingPath: path()) else {
            throw DecodingError.typeMismatch(
                type,
                DecodingError.Context(
                    codingPath: path(),
                    debugDescription: "Cannot convert \(raw.kindName) \(raw) to \(type) without loss."))
        }
        if isCoerced {
            let error = DecodingError.typeMismatch(
                type,
                DecodingError.Context(
                    codingPath: path(),
                    debugDescription: "Strict mode: refused to coerce \(raw.kindName) \(raw) to \(type)."))
            pending.append((.coerced(from: "\(raw.kindName) \(raw)", to: "\(type)"), path(), error, nil))
        }
        return value
    }

    /// Records an event in the report, or throws `error()` in strict mode.
    private func record(
        _ kind: DecodeEvent.Kind, entry: KeyEntry<Model>, codingPath: [any CodingKey], detail: String?,
        error: () -> DecodingError
    ) throws {
        let options = decodingOptions
        if keySet.isStrict || options?.isStrict == true {
            throw error()
        }
        options?.report?.record(
            DecodeEvent(
                kind: kind, source: source, modelType: "\(Model.self)", keyPath: "\(entry.keyPath)",
                propertyName: entry.propertyName, codingPath: codingPath, detail: detail))
    }

    /// The coding path of the entry's value (its first alternative).
    private func valuePath(of entry: KeyEntry<Model>) -> [any CodingKey] {
        codingPath + entry.paths[0].components.keys.map { AnyCodingKey($0) as any CodingKey }
    }

    /// ``valuePath(of:)`` of entry `index`, read only when an error needs it.
    private func valuePath(ofEntry index: Int) -> [any CodingKey] {
        codingPath + keySet.entries[index].paths[0].components.keys.map { AnyCodingKey($0) as any CodingKey }
    }

    /// A transform's output as the property's type; `nil` when a transform of the whole optional
    /// (`ValueTransform<String?, String>`, `""` read as `nil`) returned `nil` for a wrapped type.
    private func transformed<Value>(_ value: Any, as type: Value.Type) throws -> Value? {
        if !(Value.self is any OptionalProperty.Type), (value as? any OptionalProperty)?.isNil == true { return nil }
        return try declared(value, as: Value.self)
    }

    /// `value`, a declared option value or a transform's output, as the property's type. Key sets check
    /// declared values when they are built, so this only fails for a mistyped value that a closure
    /// returns at decoding time, which throws rather than stopping the process.
    private func declared<Value>(_ value: Any, as type: Value.Type) throws -> Value {
        guard let value = value as? Value else {
            throw DecodingError.typeMismatch(
                Value.self,
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription:
                        "\(value) (\(Swift.type(of: value))) is not a \(Value.self): check the options of \(Model.self)'s key set."
                ))
        }
        return value
    }
}

/// An event found while decoding a value, recorded once the whole value has decoded.
private typealias PendingEvent = (
    kind: DecodeEvent.Kind, codingPath: [any CodingKey], error: DecodingError, detail: String?
)

/// Decodes anything without reading it: tells a present value from `null`.
private struct PresenceProbe: Decodable {
    init(from decoder: any Decoder) {}
}
