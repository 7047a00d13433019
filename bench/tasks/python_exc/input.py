"""Warehouse order reconciliation.

Reads a day's worth of order lines (embedded below as CSV so the module is
self-contained), groups them per warehouse, checks stock levels, applies
discounts and produces a summary report.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal, ROUND_HALF_UP

ORDER_LINES = """order_id,warehouse,sku,quantity,unit_price,customer
A-1001,north,SKU-1001,4,12.50,acme
A-1001,north,SKU-1002,1,99.00,acme
A-1002,south,SKU-1003,10,3.20,globex
A-1003,north,SKU-1001,2,12.50,initech
A-1004,east,SKU-1040,6,7.75,umbrella
A-1005,south,SKU-1002,3,99.00,hooli
A-1006,east,SKU-1041,12,1.10,acme
A-1007,north,SKU-1042,-3,45.00,globex
A-1008,south,SKU-1003,5,3.20,initech
A-1009,east,SKU-1040,1,7.75,hooli
"""

STOCK = {
    "north": {"SKU-1001": 40, "SKU-1002": 5, "SKU-1042": 8},
    "south": {"SKU-1002": 12, "SKU-1003": 100},
    "east": {"SKU-1040": 30, "SKU-1041": 200},
}

DISCOUNTS = {
    "acme": Decimal("0.05"),
    "globex": Decimal("0.10"),
    "hooli": Decimal("0.00"),
}

CENT = Decimal("0.01")


class ReconciliationError(Exception):
    """Raised when the books do not balance."""


@dataclass
class OrderLine:
    order_id: str
    warehouse: str
    sku: str
    quantity: int
    unit_price: Decimal
    customer: str

    @property
    def gross(self) -> Decimal:
        return (self.unit_price * self.quantity).quantize(CENT, ROUND_HALF_UP)


@dataclass
class Order:
    order_id: str
    customer: str
    lines: list[OrderLine] = field(default_factory=list)

    def total(self) -> Decimal:
        return sum((line.gross for line in self.lines), Decimal("0"))


@dataclass
class WarehouseReport:
    name: str
    shipped: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    revenue: Decimal = Decimal("0")
    backorders: list[str] = field(default_factory=list)

    def describe(self) -> str:
        parts = [f"{self.name}: revenue {self.revenue}"]
        for sku in sorted(self.shipped):
            parts.append(f"  {sku} x{self.shipped[sku]}")
        if self.backorders:
            parts.append("  backorders: " + ", ".join(self.backorders))
        return "\n".join(parts)


def parse_quantity(raw: str) -> int:
    value = int(raw.strip())
    return value


def parse_price(raw: str) -> Decimal:
    price = Decimal(raw.strip())
    if price < 0:
        raise ValueError(f"negative price {price}")
    return price


def parse_lines(text: str) -> list[OrderLine]:
    reader = csv.DictReader(io.StringIO(text))
    result = []
    for row in reader:
        result.append(
            OrderLine(
                order_id=row["order_id"],
                warehouse=row["warehouse"],
                sku=row["sku"],
                quantity=parse_quantity(row["quantity"]),
                unit_price=parse_price(row["unit_price"]),
                customer=row["customer"],
            )
        )
    return result


def group_orders(lines: list[OrderLine]) -> dict[str, Order]:
    orders: dict[str, Order] = {}
    for line in lines:
        order = orders.get(line.order_id)
        if order is None:
            order = Order(line.order_id, line.customer)
            orders[line.order_id] = order
        order.lines.append(line)
    return orders


def discount_for(customer: str) -> Decimal:
    return DISCOUNTS.get(customer, Decimal("0.02"))


def apply_discount(amount: Decimal, customer: str) -> Decimal:
    rate = discount_for(customer)
    return (amount * (Decimal("1") - rate)).quantize(CENT, ROUND_HALF_UP)


def validate_line(line: OrderLine) -> None:
    if line.quantity <= 0:
        raise ValueError(f"invalid quantity for {line.sku}: {line.quantity}")
    if line.warehouse not in STOCK:
        raise ReconciliationError(f"unknown warehouse {line.warehouse}")


def reserve(stock: dict[str, dict[str, int]], line: OrderLine) -> bool:
    available = stock[line.warehouse].get(line.sku, 0)
    if available < line.quantity:
        return False
    stock[line.warehouse][line.sku] = available - line.quantity
    return True


def reconcile(orders: dict[str, Order]) -> dict[str, WarehouseReport]:
    stock = {name: dict(levels) for name, levels in STOCK.items()}
    reports = {name: WarehouseReport(name) for name in stock}
    for order_id in sorted(orders):
        order = orders[order_id]
        for line in order.lines:
            validate_line(line)
            report = reports[line.warehouse]
            if reserve(stock, line):
                report.shipped[line.sku] += line.quantity
                report.revenue += apply_discount(line.gross, order.customer)
            else:
                report.backorders.append(f"{order_id}/{line.sku}")
    return reports


def check_totals(orders: dict[str, Order], reports: dict[str, WarehouseReport]) -> None:
    booked = sum((o.total() for o in orders.values()), Decimal("0"))
    earned = sum((r.revenue for r in reports.values()), Decimal("0"))
    if earned > booked:
        raise ReconciliationError(f"earned {earned} exceeds booked {booked}")


def top_customers(orders: dict[str, Order], n: int = 3) -> list[tuple[str, Decimal]]:
    per_customer: dict[str, Decimal] = defaultdict(Decimal)
    for order in orders.values():
        per_customer[order.customer] += order.total()
    ranked = sorted(per_customer.items(), key=lambda kv: (-kv[1], kv[0]))
    return ranked[:n]


def render(reports: dict[str, WarehouseReport], customers: list[tuple[str, Decimal]]) -> str:
    out = ["== warehouse summary =="]
    for name in sorted(reports):
        out.append(reports[name].describe())
    out.append("== top customers ==")
    for rank, (customer, amount) in enumerate(customers, start=1):
        out.append(f"{rank}. {customer:<10} {amount:>10}")
    return "\n".join(out)


def main() -> int:
    lines = parse_lines(ORDER_LINES)
    orders = group_orders(lines)
    reports = reconcile(orders)
    check_totals(orders, reports)
    print(render(reports, top_customers(orders)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
