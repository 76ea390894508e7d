import SluiceCore

/// Every dataset Sluice knows, by the name pipeline specs use.
public enum Catalog {
  public static let datasets: [AnyDataset] = [
    AnyDataset(FruitsDataset()),
    AnyDataset(OrdersDataset()),
  ]

  public static func dataset(named name: String) -> AnyDataset? {
    datasets.first { $0.name == name }
  }
}
