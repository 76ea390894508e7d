@_spi(Internals) import SluiceCore

/// The devices feed (seed 000) → `devices`. Re-importing a device updates its row and keeps
/// every alert that names it; under `--on-conflict replace` the device row is deleted and
/// inserted anew, and its alerts are deleted with it.
public struct DevicesDataset: Dataset {
  public init() {}

  public var name: String { "devices" }
  public var summary: String {
    "devices → devices (upsert keeps their alerts; replace deletes them with the device)"
  }

  public var schema: Schema { Self.schema }
  static let schema = Schema([Devices.devices])

  static let idNotBlank = ValidationRule(
    "device ids are not blank", message: "must not be blank", constraints: [.notBlank(at: "id")])
  static let nameNotBlank = ValidationRule(
    "device names are not blank", message: "must not be blank", constraints: [.notBlank(at: "name")])
  static let latitudeInRange = ValidationRule(
    "latitude is within -90...90", code: .outOfRange, message: "must be a latitude from -90 to 90 degrees",
    constraints: [.range(-90...90, at: "latitude")])
  static let longitudeInRange = ValidationRule(
    "longitude is within -180...180", code: .outOfRange, message: "must be a longitude from -180 to 180 degrees",
    constraints: [.range(-180...180, at: "longitude")])

  public var rules: [ValidationRule] {
    [Self.idNotBlank, Self.nameNotBlank, Self.latitudeInRange, Self.longitudeInRange]
  }

  public func validate(_ device: DeviceDTO, into validation: inout Validation) {
    validation.checkNotBlank(Self.idNotBlank, device.id, at: "id")
    validation.checkNotBlank(Self.nameNotBlank, device.name, at: "name")
    validation.checkRange(Self.latitudeInRange, device.latitude, -90...90, at: "latitude")
    validation.checkRange(Self.longitudeInRange, device.longitude, -180...180, at: "longitude")
  }

  public func map(_ device: DeviceDTO, context _: inout MappingContext) throws(MappingError) -> Device {
    Device(id: device.id, name: device.name, latitude: device.latitude, longitude: device.longitude)
  }

  public func rows(for device: Device, into rows: inout RecordRows) {
    rows.add(Devices.devices, device.id, device.name, device.latitude, device.longitude)
  }
}
