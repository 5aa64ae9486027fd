/// A value stored in options.
///
/// `@unchecked Sendable`: the values come from modifiers that take them as `Sendable`, or are standard
/// numeric types converted from such values (integer literals for an `Int64` property).
struct SendableValue: @unchecked Sendable {
    let value: Any
}

/// Converts a value declared in a modifier (often a literal) to the property's type, exactly.
enum DeclaredValue {
    static func convert<Target>(_ value: Any, to target: Target.Type) -> Target? {
        if let value = value as? Target { return value }
        if let integerType = Target.self as? any BinaryInteger.Type, let integer = value as? any BinaryInteger {
            return integerType.init(exactly: integer) as? Target
        }
        if let floatingType = Target.self as? any BinaryFloatingPoint.Type {
            if let integer = value as? any BinaryInteger { return floatingType.init(integer) as? Target }
            if let double = value as? Double { return floatingType.init(double) as? Target }
        }
        return nil
    }
}
