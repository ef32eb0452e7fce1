package enum Placeholder2 {}
