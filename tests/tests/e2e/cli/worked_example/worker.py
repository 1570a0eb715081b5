"""The order's activities, each answering at once."""

import weft_guest

worker = weft_guest.ActivityWorker()


@worker.activity("Reserve", "1.0")
def reserve(task):
    return "reserved"


@worker.activity("Charge", "1.0")
def charge(task):
    return "receipt-1"


@worker.activity("Refund", "1.0")
def refund(task):
    return "refunded"


@worker.activity("Pack", "1.0")
def pack(task):
    return "tracking-1"
