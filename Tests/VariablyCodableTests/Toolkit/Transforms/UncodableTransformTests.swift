import Foundation
import Testing
import VariablyCodable

/// A plain struct, not `Codable`.
private struct Point: Equatable, Sendable {
    var x: Double
    var y: Double
}

private let pointAsArray = ValueTransform<Point, [Double]>(
    decode: { values in
        guard values.count == 2 else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: [], debugDescription: "Expected [x, y]."))
        }
        return Point(x: values[0], y: values[1])
    },
    encode: { [$0.x, $0.y] })

private let pairAsString = ValueTransform<(Int, Int), String>(
    decode: { text in
        let parts = text.split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2 else {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: "Expected WxH."))
        }
        return (parts[0], parts[1])
    },
    encode: { "\($0.0)x\($0.1)" })

/// Properties of types that are not `Codable`: a struct, a tuple, an optional struct.
private struct Shape: VariablyCodable, EmptyInitializable {
    var origin = Point(x: 0, y: 0)
    var size: (Int, Int) = (0, 0)
    var anchor: Point?

    static let keySets = KeySets<Shape>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.origin, "origin", transform: pointAsArray)
            Key(\.size, "size", transform: pairAsString)
            Key(\.anchor, "anchor", transform: pointAsArray)
        }
        KeySet(.local, style: .snakeCase)
    }
}

/// The same, decoded in its own initializer.
private struct Marker: VariablyCodable {
    var position: Point
    var label: String

    init(position: Point, label: String) {
        self.position = position
        self.label = label
    }

    init(from container: DecodingContainer<Marker>) throws {
        position = try container.decode(\.position)
        label = try container.decode(\.label)
    }

    static let keySets = KeySets<Marker>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.position, "at", transform: pointAsArray)
            Key(\.label, "label")
        }
    }
}

/// A transform does the coding, so the property's type need not be `Codable`.
@Suite struct UncodableTransformTests {
    private let json = Data(#"{"origin": [1.5, 2], "size": "3x4", "anchor": null}"#.utf8)

    @Test(arguments: [false, true])
    func propertiesOfTypesThatAreNotCodableDecodeThroughTheirTransform(fast: Bool) throws {
        let shape =
            fast
            ? try KeySetJSONDecoder(source: .remote).decode(Shape.self, from: json)
            : try JSONDecoder(source: .remote).decode(Shape.self, from: json)
        #expect(shape.origin == Point(x: 1.5, y: 2))
        #expect(shape.size == (3, 4))
        #expect(shape.anchor == nil)
    }

    @Test func theyEncodeThroughTheirTransformAndRoundTrip() throws {
        var shape = Shape()
        shape.origin = Point(x: 1, y: -1)
        shape.size = (640, 480)
        shape.anchor = Point(x: 0.5, y: 0.25)
        let data = try JSONEncoder(source: .remote).encode(shape)
        let object = try toolkitObject(data)
        #expect(object["size"] as? String == "640x480")
        #expect(object["anchor"] as? [Double] == [0.5, 0.25])
        let decoded = try KeySetJSONDecoder(source: .remote).decode(Shape.self, from: data)
        #expect(decoded.origin == shape.origin && decoded.size == shape.size && decoded.anchor == shape.anchor)
    }

    @Test(arguments: [false, true])
    func aModelsOwnInitializerDecodesThemByKeyPath(fast: Bool) throws {
        let data = Data(#"{"at": [3, 4], "label": "here"}"#.utf8)
        let marker =
            fast
            ? try KeySetJSONDecoder(source: .remote).decode(Marker.self, from: data)
            : try JSONDecoder(source: .remote).decode(Marker.self, from: data)
        #expect(marker.position == Point(x: 3, y: 4))
        #expect(marker.label == "here")
    }

    @Test(arguments: [
        #"{"origin": [1], "size": "3x4"}"#,
        #"{"origin": null, "size": "3x4"}"#,
        #"{"size": "3x4"}"#,
        #"{"origin": "1,2", "size": "3x4"}"#,
    ])
    func badValuesAreErrorsNamingTheProperty(json: String) throws {
        let error = #expect(throws: VariablyCodingError.self) {
            try JSONDecoder(source: .remote).decode(Shape.self, from: Data(json.utf8))
        }
        #expect(error?.keyPath == "\\Shape.origin")
    }

    /// A key derived by another source's style carries no transform: an error, never a trap.
    @Test func aSourceWhoseKeyHasNoTransformRefusesToCodeIt() {
        #expect(throws: (any Error).self) {
            try JSONEncoder(source: .local).encode(Shape())
        }
        let error = #expect(throws: VariablyCodingError.self) {
            try JSONDecoder(source: .local).decode(Shape.self, from: Data(#"{"origin": [1, 2]}"#.utf8))
        }
        #expect(error?.keyPath == "\\Shape.origin")
    }
}
