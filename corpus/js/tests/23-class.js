class Shape {
  #id;
  static count = 0;
  constructor(name) { this.name = name; this.#id = ++Shape.count; }
  get id() { return this.#id; }
  area() { return 0; }
  toString() { return this.name + '#' + this.#id; }
  static create(name) { return new this(name); }
}
class Square extends Shape {
  constructor(side) { super('square'); this.side = side; }
  area() { return this.side ** 2; }
}
var sq = new Square(3);
assertEq(sq.area(), 9);
assertEq(sq.id, 1);
assertEq(String(sq), 'square#1');
assertEq(Shape.create('blob').id, 2);
assert(sq instanceof Shape && Object.getPrototypeOf(Square) === Shape, 'inheritance');
class Stack extends Array {
  peek() { return this[this.length - 1]; }
}
var st = new Stack();
st.push(1, 2);
assertEq(st.peek(), 2);
assert(st.map(function (x) { return x; }) instanceof Stack, 'species');
class MyError extends Error {}
assertEq(new MyError('m').message, 'm');
class MyMap extends Map {}
assertEq(new MyMap([[1, 1]]).size, 1);
class MyPromise extends Promise {}
assert(MyPromise.resolve(1) instanceof MyPromise, 'promise subclass');
