import Foundation

/// Writes JSON bytes for ``KeySetJSONEncoder``, formatted exactly as `JSONEncoder` formats them:
/// compact, `/` escaped as `\/`, control characters as `\n`-style or `\u00xx` escapes, other characters
/// as they are, numbers as their Swift `description` without a trailing `.0`.
final class JSONWriter {
    // One encode call owns the writer and never holds two accesses to `bytes` at once, so the runtime's
    // exclusivity checks (a third of the writer's time, measured) are skipped.
    @exclusivity(unchecked) var bytes: [UInt8] = []
    let userInfo: [CodingUserInfoKey: any Sendable]
    private lazy var fallback: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.userInfo = userInfo
        return encoder
    }()

    init(userInfo: [CodingUserInfoKey: any Sendable]) {
        self.userInfo = userInfo
        bytes.reserveCapacity(1024)
    }

    /// Writes any value, directly when its type is one the writer knows.
    func write<T: Encodable>(_ value: T, codingPath: @autoclosure () -> [any CodingKey]) throws {
        if T.self == String.self { return writeString(unsafeBitCast(value, to: String.self)) }
        if T.self == Int.self { return writeInteger(unsafeBitCast(value, to: Int.self)) }
        if T.self == Int64.self { return writeInteger(unsafeBitCast(value, to: Int64.self)) }
        if T.self == Bool.self { return writeBool(unsafeBitCast(value, to: Bool.self)) }
        if T.self == Double.self {
            return try writeFloatingPoint(unsafeBitCast(value, to: Double.self), codingPath: codingPath())
        }
        if T.self == Float.self {
            return try writeFloatingPoint(unsafeBitCast(value, to: Float.self), codingPath: codingPath())
        }
        if T.self == Date.self {
            let seconds = unsafeBitCast(value, to: Date.self).timeIntervalSinceReferenceDate
            return try writeFloatingPoint(seconds, codingPath: codingPath())
        }
        if T.self == [String].self {
            let strings = unsafeBitCast(value, to: [String].self)
            bytes.append(UInt8(ascii: "["))
            for (index, string) in strings.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                writeString(string)
            }
            bytes.append(UInt8(ascii: "]"))
            return
        }
        switch EncodingRoute.of(T.self) {
        case .model(let model):
            try writeModel(value, as: model, codingPath: codingPath())
        case .modelArray(let models):
            try models.write(value, to: self, codingPath: codingPath())
        case .encodable:
            do {
                bytes += try fallback.encode(value)
            } catch EncodingError.invalidValue(let invalid, let context) {
                // The fallback starts from the value itself: report the error where the value is.
                throw EncodingError.invalidValue(
                    invalid,
                    EncodingError.Context(
                        codingPath: codingPath() + context.codingPath, debugDescription: context.debugDescription,
                        underlyingError: context.underlyingError))
            }
        }
    }

    private func writeModel<T, Model: VariablyEncodable>(_ value: T, as type: Model.Type, codingPath: [any CodingKey])
        throws
    {
        try write(model: value as! Model, codingPath: codingPath)
    }

    /// Writes a key-set model: its entries in key-set order under their first alternative, nested
    /// paths as nested objects created where their first entry is, `nil` optionals left out.
    func write<Model: VariablyEncodable>(model: Model, codingPath: [any CodingKey]) throws {
        let (source, keySet) = try Model.keySet(for: userInfo, codingPath: codingPath)
        try write(model: model, source: source, keySet: keySet, sink: nil, basePath: codingPath, index: nil)
    }

    /// Writes an array of key-set models, looking their key set up once.
    func write<Model: VariablyEncodable>(models: [Model], codingPath: [any CodingKey]) throws {
        bytes.append(UInt8(ascii: "["))
        if !models.isEmpty {
            let (source, keySet) = try Model.keySet(for: userInfo, codingPath: codingPath + [AnyCodingKey.index(0)])
            let sink = keySet.layout.containers.isEmpty ? JSONObjectSink(writer: self, layout: keySet.layout) : nil
            for (index, model) in models.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                try write(model: model, source: source, keySet: keySet, sink: sink, basePath: codingPath, index: index)
            }
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Writes one model at `basePath` (+ `index` when it is an array element).
    private func write<Model: VariablyEncodable>(
        model: Model, source: CodingSource, keySet: KeySet<Model>, sink reusable: JSONObjectSink?,
        basePath: [any CodingKey], index: Int?
    ) throws {
        let sink = reusable ?? JSONObjectSink(writer: self, layout: keySet.layout)
        sink.start(basePath: basePath, index: index)
        let coders = keySet.coders
        for index in coders.indices {
            do {
                try coders[index].encode(model, to: sink, at: index)
            } catch let error as VariablyCodingError {
                throw error
            } catch {
                throw VariablyCodingError(
                    error, source: source, modelType: Model.self, entry: keySet.entries[index],
                    codingPath: sink.codingPath)
            }
        }
        sink.finish()
    }

    // MARK: - Scalars

    func writeBool(_ value: Bool) {
        if value {
            bytes += [UInt8(ascii: "t"), UInt8(ascii: "r"), UInt8(ascii: "u"), UInt8(ascii: "e")]
        } else {
            bytes += [UInt8(ascii: "f"), UInt8(ascii: "a"), UInt8(ascii: "l"), UInt8(ascii: "s"), UInt8(ascii: "e")]
        }
    }

    func writeInteger<T: FixedWidthInteger>(_ value: T) {
        if value == 0 {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 40) { buffer in
            var position = 40
            while magnitude != 0 {
                position -= 1
                buffer[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            }
            if value < 0 {
                position -= 1
                buffer[position] = UInt8(ascii: "-")
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[position..<40]))
        }
    }

    /// A finite floating-point value's `description`, without the `.0` of integral values.
    ///
    /// - Throws: `EncodingError.invalidValue` for infinities and NaN, as `JSONEncoder` by default.
    func writeFloatingPoint<F: BinaryFloatingPoint & LosslessStringConvertible>(
        _ value: F, codingPath: @autoclosure () -> [any CodingKey]
    ) throws {
        guard value.isFinite else {
            let name = value.isNaN ? "\(F.self).nan" : value < 0 ? "-\(F.self).infinity" : "\(F.self).infinity"
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: codingPath(),
                    debugDescription: "Unable to encode \(name) directly in JSON. Use "
                        + "JSONEncoder.NonConformingFloatEncodingStrategy.convertToString to specify how the value should be encoded."
                ))
        }
        let text = value.description
        let utf8 = text.utf8
        if utf8.count >= 2 && text.hasSuffix(".0") {
            bytes.append(contentsOf: utf8.dropLast(2))
        } else {
            bytes.append(contentsOf: utf8)
        }
    }

    func writeString(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        var utf8 = string.utf8
        let isPlain = utf8.withContiguousStorageIfAvailable { buffer in
            !buffer.contains {
                $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "/")
            }
        }
        if isPlain == true {
            bytes.append(contentsOf: utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        utf8 = string.utf8
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case UInt8(ascii: "/"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "/")]
            case 0x0A: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x08: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x0C: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes += [
                    UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)],
                    hex[Int(byte & 0xF)],
                ]
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

/// How ``JSONWriter`` writes a type it does not write directly.
enum EncodingRoute {
    case model(any VariablyEncodable.Type)
    case modelArray(any KeySetModelArrayEncodable.Type)
    case encodable

    static func of<T>(_ type: T.Type) -> EncodingRoute {
        if let model = T.self as? any VariablyEncodable.Type { return .model(model) }
        if let models = T.self as? any KeySetModelArrayEncodable.Type { return .modelArray(models) }
        return .encodable
    }
}

/// An array of key-set models, written element by element by ``JSONWriter``.
protocol KeySetModelArrayEncodable {
    static func write<T>(_ value: T, to writer: JSONWriter, codingPath: [any CodingKey]) throws
}

extension Array: KeySetModelArrayEncodable where Element: VariablyEncodable {
    static func write<T>(_ value: T, to writer: JSONWriter, codingPath: [any CodingKey]) throws {
        try writer.write(models: value as! [Element], codingPath: codingPath)
    }
}
