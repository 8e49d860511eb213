"""Generate `samples/entities/entities.jsonl`: a crowd-testing corpus of products, features, tests and bugs.

The records follow the full-text-search spec (shared seed 002): every entity carries `entity_type`, `entity_id`
("<type>:<n>"), `product_id` ("product:<n>", a product's own id for products) and `title`, plus the fields of
the spec's content-concatenation table:

    product  title                                           (+ description, not indexed by the spec)
    feature  title, description, howtofind, user_stories     (user_stories is null when a feature has none)
    test     title, goal, instructions, out_of_scope         (+ feature_id)
    bug      title, actual_result, expected_result           (+ description, steps_to_reproduce, severity,
                                                              status, test_id, feature_id; not indexed)

Six products (10 features, 20 tests and 55 bugs each) give 6 + 60 + 120 + 330 = 516 records. Bulk text is
composed from per-product vocabulary pools. Search-testing hooks (inflections, diacritics, an exact phrase,
prefixes, a title-versus-body pair, boolean combinations) live only in hand-written entities: the bulk
vocabulary never contains a hook word, and `check_hooks` fails the run if one leaks or if a hook word sits
only in a field the spec does not index. Run it with `python scripts/make_entities_fixture.py`; it is
deterministic (`random.Random(7)`, no set iteration) and prints where each hook landed.
"""

from __future__ import annotations

import json
import random
import re
import sys
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SEED = 7
OUT = Path(__file__).resolve().parent.parent / "samples" / "entities" / "entities.jsonl"
FEATURES_PER_PRODUCT = 10
TESTS_PER_PRODUCT = 20
BUGS_PER_PRODUCT = 55
FIRST_FEATURE_ID, FIRST_TEST_ID, FIRST_BUG_ID = 1001, 2001, 3001

# The spec's content-concatenation table (what its FTS5 index covers).
SEARCH_CONTENT_FIELDS: dict[str, tuple[str, ...]] = {
    "product": ("title",),
    "feature": ("title", "description", "howtofind", "user_stories"),
    "test": ("title", "goal", "instructions", "out_of_scope"),
    "bug": ("title", "actual_result", "expected_result"),
}
NON_TEXT_FIELDS = ("entity_type", "entity_id", "product_id", "feature_id", "test_id", "severity", "status")
EN_DASH = "\u2013"


@dataclass(frozen=True)
class FeatureSpec:
    key: str
    title: str
    ref: str  # hook-free short name used by generated tests and bugs
    screen: str
    description: str
    howtofind: str
    stories: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class HookBug:
    feature: str
    kind: str
    title: str
    actual: str
    expected: str
    steps: tuple[str, ...]
    tags: tuple[str, ...]


@dataclass(frozen=True)
class HookTest:
    feature: str
    tags: tuple[str, ...]
    title: str | None = None
    goal: str | None = None
    instruction: str | None = None


@dataclass
class ProductSpec:
    number: int
    title: str
    description: str
    capabilities: tuple[str, ...]
    envs: tuple[str, ...]
    env_group: str
    env_word: str
    releases: tuple[str, ...]
    screens: tuple[str, ...]
    elements: tuple[str, ...]
    actions: tuple[str, ...]
    errors: tuple[str, ...]
    objects: tuple[tuple[str, str], ...]
    values: tuple[tuple[str, str], ...]
    search_pairs: tuple[tuple[str, str], ...]
    typos: tuple[tuple[str, str], ...]
    opening: str
    data_hint: str
    out_of_scope: tuple[str, ...]
    features: tuple[FeatureSpec, ...]
    bugs: tuple[tuple[str, str, str, str, str, tuple[str, ...]], ...]  # (feature, kind, title, actual, expected, steps)
    hook_bugs: tuple[HookBug, ...] = ()
    hook_tests: tuple[HookTest, ...] = ()
    tags: tuple[str, ...] = ()
    words: dict[str, str] = field(default_factory=dict)


MOBILE = {
    "tap": "tap",
    "Tapping": "Tapping",
    "restart": "force-closing the app",
    "background": "switching to another app for a few minutes",
}
WEB = {
    "tap": "click",
    "Tapping": "Clicking",
    "restart": "reloading the page",
    "background": "leaving the browser tab in the background for a few minutes",
}
KIOSK = {
    "tap": "tap",
    "Tapping": "Tapping",
    "restart": "restarting the kiosk",
    "background": "the screen saver has run",
}

LANGUAGES = ("German", "French", "Spanish", "Polish", "Dutch", "Italian", "Portuguese")
MONTHS = ("January", "March", "April", "June", "September", "October", "November")

# --------------------------------------------------------------------------------------------------- products

FOOD = ProductSpec(
    number=598,
    title="Dashly Food Delivery",
    description=(
        "Dashly is a mobile app for ordering meals from nearby restaurants, with live courier tracking, "
        "scheduled orders and shared group baskets."
    ),
    capabilities=("search", "rotate", "darkmode", "help", "refresh"),
    envs=(
        "Pixel 8",
        "Samsung Galaxy S23",
        "iPhone 15 Pro",
        "iPhone 12 mini",
        "Xiaomi Redmi Note 12",
        "OnePlus 11",
        "iPhone SE (3rd generation)",
        "Galaxy A54",
    ),
    env_group="phones",
    env_word="the device model",
    releases=("Dashly 5.12", "Dashly 5.13", "Dashly 5.14", "Dashly 6.0 beta"),
    screens=(
        "home feed",
        "restaurant page",
        "search results",
        "basket",
        "payment step",
        "order tracking map",
        "order history",
        "account settings",
        "address book",
        "promo codes page",
    ),
    elements=(
        "Add to basket button",
        "quantity stepper",
        "cuisine filter chip",
        "delivery time selector",
        "tip slider",
        "courier map pin",
        "restaurant rating badge",
        "promo code field",
        "Reorder button",
        "address search field",
        "favourite heart icon",
        "dish photo carousel",
    ),
    actions=(
        "add a dish with three extra toppings",
        "switch the delivery address to a saved office address",
        "apply the promo code WELCOME5",
        "schedule the order for tomorrow at 12:30",
        "remove the last item from the basket",
        "change the tip from 10% to 15%",
        "filter restaurants by 'Vegan'",
        "reorder a meal from the order history",
        "open a restaurant from the home feed carousel",
        "pay with a saved Visa card",
    ),
    errors=(
        "Something went wrong. Please try again.",
        "Restaurant is currently not accepting orders",
        "Address outside delivery area",
        "Payment could not be processed (code 402)",
        "Unable to load menu",
    ),
    objects=(
        ("order", "orders"),
        ("dish", "dishes"),
        ("saved address", "saved addresses"),
        ("restaurant", "restaurants"),
        ("promo code", "promo codes"),
    ),
    values=(("€18.40", "€18.39"), ("25-35 min", "40-50 min"), ("4.6 stars", "4.4 stars")),
    search_pairs=(("marg", "margherita"), ("sush", "sushi"), ("burr", "burrito")),
    typos=(("Delivey fee", "Delivery fee"), ("Resturant closed", "Restaurant closed"), ("Add adress", "Add address")),
    opening="Open Dashly and sign in with the test account.",
    data_hint=(
        "the test cards 4111 1111 1111 1111 (Visa) and 5555 5555 5555 4444 (Mastercard) with any future "
        "expiry date, and the restaurant 'Dashly Test Kitchen'"
    ),
    out_of_scope=(
        "Menu content and prices maintained by partner restaurants",
        "The courier app",
        "Tablet layouts",
        "Promotions not listed in these instructions",
        "Real card payments; use the test cards only",
    ),
    features=(
        FeatureSpec(
            "search",
            "Restaurant search and filters",
            "restaurant search",
            "search results",
            "Search restaurants and dishes by name or cuisine, with filters for price range, rating, delivery "
            "time and dietary labels such as vegan or gluten-free.",
            "Tap the magnifier on the bottom bar, type a dish or cuisine, then open the filter sheet at the top right.",
            (
                "As a hungry commuter, I want to filter by delivery time so that the food arrives before my "
                "train leaves.",
                "As a vegan customer, I want dietary labels in the results so that I do not have to open every menu.",
            ),
        ),
        FeatureSpec(
            "menu",
            "Restaurant menu and dish options",
            "restaurant menu",
            "restaurant page",
            "Menu page per restaurant with categories, dish photos, required and optional extras, and allergen "
            "information for every dish.",
            "Open any restaurant from the home feed and tap a dish to see its options sheet.",
            ("As a parent, I want to see allergens before adding a dish so that I can order safely for my kids.",),
        ),
        FeatureSpec(
            "basket",
            "Basket and group orders",
            "basket",
            "basket",
            "Basket with quantity changes, item notes and group orders in which several people add dishes "
            "through a shared link before one person pays.",
            "Add a dish and tap the basket bar at the bottom; use 'Invite friends' to start a group order.",
            (
                "As an office manager, I want colleagues to add their own dishes so that I do not collect "
                "orders by chat.",
            ),
        ),
        FeatureSpec(
            "checkout",
            "Checkout and payment",
            "payment step",
            "payment step",
            "The checkout flow with saved cards, wallet payments, tips and invoices for business profiles. Group "
            "orders support split checkouts, so every member pays their own share.",
            "From the basket tap 'Go to checkout'; use the test cards listed in the test instructions.",
            ("As a regular customer, I want my last card preselected so that paying takes one tap.",),
            tags=("checkout", "checkouts"),
        ),
        FeatureSpec(
            "tracking",
            "Live order tracking",
            "order tracking",
            "order tracking map",
            "Map with the courier's live position, the estimated arrival time and status steps from "
            "'Preparing' to 'Delivered'.",
            "Place an order at 'Dashly Test Kitchen' and open it from the banner on the home feed.",
            ("As a customer, I want to see where the courier is so that I know when to go downstairs.",),
        ),
        FeatureSpec(
            "push",
            "Order status notifications",
            "status updates",
            "account settings",
            "Push notifications for accepted, picked-up and delivered orders, with a switch per type in the "
            "settings. Each notification opens the tracking map.",
            "Settings > Notifications; then place an order and lock the phone.",
            (
                "As a customer, I want the app to notify me when the courier is two minutes away so that I can "
                "meet them at the door.",
            ),
            tags=("notifications", "notification", "notify"),
        ),
        FeatureSpec(
            "scheduled",
            "Scheduled orders",
            "scheduled orders",
            "basket",
            "Orders can be scheduled up to five days ahead in 15-minute slots that respect the opening hours of "
            "the restaurant.",
            "In the basket, tap 'ASAP' and switch to 'Schedule'.",
            ("As a team lead, I want to schedule lunch for Friday so that it arrives right after our meeting.",),
        ),
        FeatureSpec(
            "addresses",
            "Address book",
            "address book",
            "address book",
            "Saved addresses with labels, entrance notes and a movable pin on the map, validated against the "
            "delivery zones of nearby restaurants.",
            "Profile > Addresses, or tap the address line at the top of the home feed.",
        ),
        FeatureSpec(
            "promos",
            "Promo codes and vouchers",
            "promo codes",
            "promo codes page",
            "Promo codes, referral vouchers and restaurant-specific discounts, with clear rules for minimum "
            "order value and expiry.",
            "Profile > Promo codes, or the promo code field in the basket.",
            ("As a new customer, I want my welcome discount applied automatically so that I do not miss it.",),
        ),
        FeatureSpec(
            "history",
            "Order history and reorder",
            "order history",
            "order history",
            "List of past orders with receipts, ratings and one-tap reorder of the same dishes.",
            "Profile > Orders.",
        ),
    ),
    bugs=(
        (
            "tracking",
            "functional",
            "Courier pin jumps back to the restaurant during delivery",
            "While the order is on its way, the courier map pin jumps back to the restaurant every 30 seconds "
            "and the arrival estimate grows to 55 minutes.",
            "The pin follows the courier's route smoothly and the estimate stays stable.",
            ("Place an order at 'Dashly Test Kitchen'.", "Open the order tracking map and watch it for two minutes."),
        ),
        (
            "search",
            "functional",
            "'Nut-free' filter still shows dishes with almonds",
            "With the 'Nut-free' dietary filter active, the Thai Garden menu still lists the almond chicken curry "
            "without any warning.",
            "Dishes containing nuts are hidden, or clearly flagged, while the filter is active.",
            ("Search for 'Thai Garden'.", "Turn on the 'Nut-free' filter and open the menu."),
        ),
        (
            "basket",
            "functional",
            "Group basket lists another member's dish twice",
            "In a group order with three members, the second member's pad thai appears twice in the host's basket "
            "and is counted twice in the total.",
            "Each member's dishes appear once and the total matches the items.",
            (
                "Start a group order and invite two test accounts.",
                "Add a pad thai from the second account.",
                "Open the basket on the host account.",
            ),
        ),
        (
            "scheduled",
            "functional",
            "Scheduled order moves by one hour after the clock change",
            "An order scheduled for Sunday 12:30 before the switch to summer time is shown and sent to the "
            "restaurant as 13:30.",
            "The scheduled time stays 12:30 local time.",
            (
                "On the Friday before the clock change, schedule an order for Sunday 12:30.",
                "Open the order on Sunday morning.",
            ),
        ),
        (
            "search",
            "visual",
            "Restaurant rating badge shows six stars",
            "Restaurants rated 4.5 or higher get a rating badge with six stars, the last one half filled.",
            "Ratings are drawn with five stars.",
            ("Search for pizza and sort by rating.",),
        ),
        (
            "promos",
            "functional",
            "Promo code WELCOME5 can be redeemed twice",
            "Applying WELCOME5, removing it and applying it again lowers the total by €10 instead of €5.",
            "A promo code applies its discount only once per order.",
            ("Add dishes for more than €20.", "Apply WELCOME5, remove it and apply it again."),
        ),
    ),
    hook_bugs=(
        HookBug(
            "tracking",
            "critical",
            "App crashes when reopening a tracked order on Android 14",
            "Opening the order from the home banner after the app was in the background for ten minutes crashes "
            "the app on Android 14 (Pixel 8). On Android 13 the tracking map opens normally.",
            "The order tracking map opens and shows the courier position.",
            ("Place an order and put the app in the background for ten minutes.", "Tap the order banner."),
            ("crashes", "android"),
        ),
        HookBug(
            "checkout",
            "high",
            "Tip slider snaps back to 10% on Android 13",
            "On Android 13 (Galaxy A54) the tip slider returns to 10% as soon as it is released at 15%, so the "
            "higher tip cannot be chosen.",
            "The tip stays at the percentage where the slider was released.",
            ("Fill the basket and go to the payment step.", "Drag the tip slider to 15% and release it."),
            ("android",),
        ),
        HookBug(
            "addresses",
            "high",
            "Keyboard covers the delivery notes field on iOS 17",
            "On iOS 17.4 (iPhone 12 mini) the keyboard hides the delivery notes field and the page does not "
            "scroll, so the typed text cannot be seen.",
            "The page scrolls so the field stays visible above the keyboard.",
            ("Open the address book and edit a saved address.", "Tap the delivery notes field and start typing."),
            ("ios", "keyboard"),
        ),
        HookBug(
            "checkout",
            "high",
            "Tip amount missing on the payment confirmation screen",
            "After paying with a saved Visa card, the payment confirmation screen lists the food and the delivery "
            "fee but not the 15% tip, although the card was charged €21.16.",
            "The tip appears as its own line and is part of the total shown.",
            ("Fill the basket, set the tip to 15% and pay with a saved Visa card.",),
            ("payment confirmation screen",),
        ),
        HookBug(
            "checkout",
            "usability",
            "Screen reader skips the order confirmation banner after payment",
            "With VoiceOver on, the 'Order placed' banner is never announced; focus jumps straight to the map "
            "and blind users do not learn that the order went through.",
            "The banner is announced as soon as it appears.",
            ("Turn on VoiceOver.", "Place an order with a saved card and listen."),
            ("payment+confirmation+screen",),
        ),
        HookBug(
            "basket",
            "high",
            "Go to checkout button stays greyed out after removing a sold-out dish",
            "When a dish sells out while it is in the basket, removing it leaves the Go to checkout button "
            "disabled, even though the remaining dishes are available.",
            "The button becomes active again once only available dishes remain.",
            ("Add two dishes from 'Dashly Test Kitchen'.", "Ask the support team to mark one as sold out."),
            ("checkout",),
        ),
        HookBug(
            "push",
            "low",
            "Courier arrival notifications repeat after delivery",
            "Two to four 'Your courier is here' notifications arrive after the order is already marked 'Delivered'.",
            "Arrival messages stop once the order is delivered.",
            ("Place an order and lock the phone until the order is delivered.",),
            ("notifications",),
        ),
        HookBug(
            "addresses",
            "high",
            "Saved addresses disappear after logging in again",
            "After signing out and logging in again with the same account, the address book is empty until the "
            "app is restarted.",
            "Saved addresses are shown right after signing back in.",
            ("Save two addresses.", "Sign out from the profile page and sign back in."),
            ("logging",),
        ),
    ),
    words=MOBILE,
)

BANK = ProductSpec(
    number=599,
    title="Northbank Online Banking",
    description=(
        "Browser-based banking for personal customers: accounts overview, SEPA transfers, standing orders, "
        "card controls and statements."
    ),
    capabilities=("search", "web", "darkmode", "help", "refresh"),
    envs=(
        "Chrome 126 on Windows 11",
        "Firefox 127 on Windows 10",
        "Safari 17.5 on macOS Sonoma",
        "Edge 125 on Windows 11",
        "Chrome 126 on macOS Ventura",
        "Firefox ESR 115 on Ubuntu 22.04",
    ),
    env_group="desktop browsers",
    env_word="the browser version",
    releases=("web release 2024.06", "web release 2024.07", "web release 2024.08"),
    screens=(
        "accounts overview",
        "transfer form",
        "standing orders list",
        "card controls page",
        "statements page",
        "payee list",
        "security settings",
        "transaction details panel",
        "profile page",
    ),
    elements=(
        "amount field",
        "IBAN field",
        "Send transfer button",
        "account balance tile",
        "date picker",
        "card freeze toggle",
        "payee search field",
        "download PDF link",
        "transaction category chip",
        "one-time code input",
        "account nickname label",
        "spending chart",
    ),
    actions=(
        "send 250.00 EUR to a saved payee",
        "create a monthly standing order",
        "freeze the debit card",
        "download the March statement",
        "add a new payee with a Dutch IBAN",
        "rename the savings account",
        "filter transactions by 'Groceries'",
        "change the daily card limit to 1,500 EUR",
        "enter the one-time code from the SMS",
        "switch between the current and the savings account",
    ),
    errors=(
        "Service temporarily unavailable (ERR-5003)",
        "The IBAN you entered is not valid",
        "Your session has expired",
        "Daily limit exceeded",
        "We could not verify the code",
    ),
    objects=(
        ("transfer", "transfers"),
        ("payee", "payees"),
        ("standing order", "standing orders"),
        ("statement", "statements"),
        ("transaction", "transactions"),
    ),
    values=(("1,204.50 EUR", "1,204.05 EUR"), ("12 pending transactions", "11 pending transactions")),
    search_pairs=(("groc", "groceries"), ("amaz", "Amazon"), ("insur", "insurance")),
    typos=(("Recieved", "Received"), ("Standing oder", "Standing order"), ("Avaliable balance", "Available balance")),
    opening="Sign in to Northbank with a test customer.",
    data_hint="test customers 10042 and 10077 with the one-time code 000000",
    out_of_scope=(
        "The mobile banking app (a separate product)",
        "Loan and mortgage pages",
        "Legal texts and the terms and conditions PDFs",
        "Brute-force or penetration testing",
        "Real money movement; the test environment uses simulated accounts",
    ),
    features=(
        FeatureSpec(
            "auth",
            "Login and two-factor authentication",
            "sign-in",
            "security settings",
            "Login with customer number and password, followed by a one-time code by SMS or from the "
            "authenticator app. Five failed attempts lock the account for 30 minutes.",
            "Open the Northbank start page and use 'Login' at the top right; test customers are in the instructions.",
            (
                "As a customer, I want to approve login attempts in the authenticator app so that I do not wait "
                "for SMS codes.",
            ),
            tags=("login",),
        ),
        FeatureSpec(
            "overview",
            "Accounts overview",
            "accounts overview",
            "accounts overview",
            "Start page after signing in: balance tiles for every account, the last five transactions and "
            "shortcuts to transfers and cards.",
            "It is the first page after signing in.",
            ("As a customer with three accounts, I want all balances on one page so that I see my money at once.",),
        ),
        FeatureSpec(
            "transfers",
            "SEPA transfers",
            "transfers",
            "transfer form",
            "Single euro transfers to saved or new payees, with IBAN validation, a reference text and optional "
            "execution on a future date.",
            "Accounts overview > 'New transfer', or the arrow icon on an account tile.",
            (
                "As a freelancer, I want to schedule a transfer for the first of the month so that rent is paid "
                "on time.",
            ),
        ),
        FeatureSpec(
            "standing",
            "Standing orders",
            "standing orders",
            "standing orders list",
            "Recurring transfers with weekly, monthly or quarterly intervals, an optional end date and a pause option.",
            "Transfers > Standing orders.",
        ),
        FeatureSpec(
            "cards",
            "Card controls",
            "card controls",
            "card controls page",
            "Freeze and unfreeze debit and credit cards, set daily limits, and switch online and abroad usage on "
            "or off.",
            "Cards in the main menu; choose a card to open its controls.",
            ("As a customer who lost a wallet, I want to freeze my card instantly so that nobody can use it.",),
        ),
        FeatureSpec(
            "statements",
            "Statements and exports",
            "statements",
            "statements page",
            "Monthly PDF statements for every account and CSV or PDF exports for custom date ranges of up to "
            "24 months.",
            "Accounts overview > an account > Statements.",
        ),
        FeatureSpec(
            "payees",
            "Payee management",
            "payees",
            "payee list",
            "Saved payees with names, IBANs and default references; new payees need a one-time code before the "
            "first transfer.",
            "Transfers > Payees.",
            ("As a landlord's tenant, I want my landlord saved as a payee so that I never retype the IBAN.",),
        ),
        FeatureSpec(
            "insights",
            "Spending insights",
            "spending insights",
            "accounts overview",
            "Automatic categories for transactions and a monthly spending chart per category, with the option "
            "to recategorise single transactions.",
            "Accounts overview > 'Insights' tab.",
            ("As a student, I want to see what I spend on food each month so that I can stick to a budget.",),
        ),
        FeatureSpec(
            "balancealerts",
            "Balance alerts by e-mail and SMS",
            "balance alerts",
            "profile page",
            "Customers define thresholds per account and receive an e-mail or SMS when the balance falls below them.",
            "Profile > Alerts.",
        ),
        FeatureSpec(
            "profile",
            "Profile and contact details",
            "profile",
            "profile page",
            "Change address, phone number and e-mail; changes to the phone number need a one-time code sent to "
            "the old number.",
            "Click your name at the top right and choose 'Profile'.",
        ),
    ),
    bugs=(
        (
            "standing",
            "functional",
            "Standing order accepts an end date in the past",
            "The end date field of a new standing order accepts 01/01/2020 and saves the order, which then never "
            "executes.",
            "End dates before the first execution are rejected with a clear message.",
            ("Open the standing orders list and choose 'New'.", "Enter 01/01/2020 as the end date and save."),
        ),
        (
            "payees",
            "functional",
            "Valid Belgian IBAN rejected",
            'Entering BE71 0961 2345 6769 shows "The IBAN you entered is not valid" although the check digits '
            "are correct.",
            "Valid IBANs from all SEPA countries are accepted, with or without spaces.",
            ("Add a new payee.", "Enter BE71 0961 2345 6769 as the IBAN."),
        ),
        (
            "statements",
            "functional",
            "Statement PDF lists transactions in reverse order",
            "The March statement PDF starts with the last transaction of the month, while the list on screen and "
            "all earlier statements start with the first.",
            "Statements list transactions in chronological order.",
            ("Open the statements page.", "Download the March statement."),
        ),
        (
            "cards",
            "functional",
            "Card freeze toggle switches back after reloading",
            "The toggle shows 'Frozen' after switching it, but after reloading the card controls page it reads "
            "'Active' again; a test purchase is declined, so the card really is frozen.",
            "The toggle reflects the real card state after reloading.",
            ("Freeze the debit card on the card controls page.", "Reload the page."),
        ),
        (
            "overview",
            "visual",
            "Account nickname with an emoji breaks the overview tiles",
            "Naming the savings account 'Holiday 🌴' makes its balance tile twice as tall and pushes the other "
            "tiles out of the grid.",
            "Nicknames with emoji stay on one line inside the tile.",
            ("Rename the savings account to 'Holiday 🌴'.", "Go back to the accounts overview."),
        ),
        (
            "insights",
            "functional",
            "Spending chart counts a refund as an expense",
            "A refund of 49.99 EUR from an online shop is added to the 'Shopping' category of the spending chart "
            "as if it were an expense.",
            "Refunds reduce the category total or are shown separately.",
            ("Open the 'Insights' tab for the month with the 49.99 EUR refund.",),
        ),
    ),
    hook_bugs=(
        HookBug(
            "transfers",
            "high",
            "Currency dropdown resets to EUR when editing a transfer",
            "Reopening a saved future-dated transfer in USD shows EUR as its currency, and saving it converts "
            "the amount at today's rate.",
            "The currency chosen when the transfer was created is kept.",
            ("Create a transfer of 100 USD for next week.", "Open it from the transfer list and click 'Edit'."),
            ("dropdown (title)",),
        ),
        HookBug(
            "transfers",
            "visual",
            "Bordered input fields turn red before anything is typed",
            "As soon as the transfer form opens, the IBAN and amount inputs are drawn bordered in red as if they "
            "were invalid.",
            "Fields are only marked red after they are left with invalid content.",
            ("Open the transfer form.",),
            ("bordered",),
        ),
        HookBug(
            "auth",
            "high",
            "Login button stays disabled after password manager autofill",
            "When 1Password fills in the customer number and password, the Login button stays greyed out until "
            "a character is typed by hand.",
            "The button becomes active as soon as both fields contain a value.",
            ("Save the test customer in 1Password.", "Open the start page and let 1Password fill the form."),
            ("login",),
        ),
        HookBug(
            "transfers",
            "high",
            "iOS Safari keyboard hides the Send transfer button",
            "On an iPhone 14 with iOS 17.5 the keyboard stays open after the amount is entered and covers the "
            "Send transfer button; there is no Done key to close it.",
            "The button stays reachable, or the page scrolls above the keyboard.",
            ("Open the transfer form in Safari on an iPhone.", "Enter an IBAN and an amount."),
            ("ios", "keyboard"),
        ),
        HookBug(
            "cards",
            "low",
            "Card controls page zooms in on Android Chrome when the limit field is focused",
            "In Chrome for Android (Galaxy S22) the page zooms to about 150% when the daily limit field gets "
            "focus and does not zoom back afterwards.",
            "The page keeps its scale; inputs use at least 16 px text.",
            ("Open the card controls page on a phone.", "Tap the daily limit field."),
            ("android",),
        ),
        HookBug(
            "statements",
            "critical",
            "Browser tab crash when exporting 24 months as PDF",
            "Exporting 24 months of transactions as PDF makes Firefox 127 use more than 3 GB of memory until its "
            "crash page appears and the export is lost.",
            "The PDF is generated, or the export offers a shorter range.",
            ("Open the statements page of the current account.", "Choose 'Export', 24 months, PDF."),
            ("crash",),
        ),
        HookBug(
            "transfers",
            "high",
            "Scheduled transfer shows today's date after submission",
            "After scheduling a transfer for the 15th, the payment confirmation screen shows today's date as the "
            "execution date, while the transfer list shows the 15th correctly.",
            "The execution date on the summary matches the scheduled date.",
            ("Create a transfer with an execution date of the 15th and submit it with the one-time code.",),
            ("payment confirmation screen",),
        ),
        HookBug(
            "standing",
            "low",
            "Confirmation e-mail for a scheduled payment arrives twice",
            "Every execution of a standing order sends two identical e-mails, while the screen in online banking "
            "shows only one debit.",
            "One e-mail is sent per execution.",
            ("Create a daily standing order of 1.00 EUR.", "Wait for the next execution and check the inbox."),
            ("payment+confirmation+screen",),
        ),
    ),
    words=WEB,
)

TRAVEL = ProductSpec(
    number=600,
    title="Wayfarer Travel Booking",
    description=(
        "Website for searching and booking flights, hotels and rental cars, with multi-city itineraries and "
        "loyalty points."
    ),
    capabilities=("search", "web", "help", "refresh"),
    envs=(
        "Chrome 126 on Windows 11",
        "Safari 17.5 on macOS Sonoma",
        "Firefox 127 on Windows 11",
        "Safari on iPhone 14",
        "Samsung Internet 24 on Galaxy S22",
        "Edge 125 on Windows 10",
    ),
    env_group="mobile and desktop browsers",
    env_word="the browser version",
    releases=("sprint 41 staging build", "sprint 42 staging build", "release 7.3"),
    screens=(
        "flight search form",
        "flight results list",
        "fare selection page",
        "seat map",
        "hotel results map",
        "hotel details page",
        "car rental results",
        "traveller details form",
        "trip overview",
        "loyalty account page",
    ),
    elements=(
        "origin airport field",
        "date range picker",
        "passenger counter",
        "price filter slider",
        "nonstop toggle",
        "seat legend",
        "room type selector",
        "Book now button",
        "baggage add-on card",
        "map cluster marker",
        "loyalty points badge",
        "fare rules link",
    ),
    actions=(
        "search a return flight from Lisbon to Berlin",
        "add a second room for two children",
        "select seat 14C on the outbound flight",
        "switch the currency to GBP",
        "add checked baggage for one passenger",
        "filter hotels by 'Free cancellation'",
        "add a rental car at the destination airport",
        "enter a passport number that expires next month",
        "apply 5,000 loyalty points",
        "open the fare rules of the cheapest fare",
    ),
    errors=(
        "This fare is no longer available",
        "We could not complete your booking",
        "Please select a valid return date",
        "No results match your filters",
        "Unexpected error (WF-1207)",
    ),
    objects=(
        ("booking", "bookings"),
        ("flight", "flights"),
        ("hotel", "hotels"),
        ("traveller", "travellers"),
        ("itinerary", "itineraries"),
    ),
    values=(("€412", "€428"), ("2 nights", "3 nights"), ("1 stop", "nonstop")),
    search_pairs=(("Lisb", "Lisbon"), ("Frankf", "Frankfurt"), ("Barc", "Barcelona")),
    typos=(
        ("Retrun flight", "Return flight"),
        ("Traveller detials", "Traveller details"),
        ("Free cancelation until", "Free cancellation until"),
    ),
    opening="Open the Wayfarer staging site and sign in with the test traveller account.",
    data_hint="the test traveller account and the test card 4000 0000 0000 0002",
    out_of_scope=(
        "Prices and availability from partner airlines and hotels",
        "The partner extranet for hotels",
        "Emails sent by airlines after booking",
        "Performance of the search under load",
    ),
    features=(
        FeatureSpec(
            "flightsearch",
            "Flight search",
            "flight search",
            "flight search form",
            "One-way, return and open-jaw searches with flexible dates, passenger types (adult, child, infant) "
            "and cabin classes.",
            "The search form on the start page, 'Flights' tab.",
            (
                "As a family traveller, I want to add an infant to the search so that the prices include the "
                "infant fare.",
                "As a business traveller, I want flexible dates so that I can pick the cheapest day.",
            ),
        ),
        FeatureSpec(
            "fares",
            "Fare selection and baggage",
            "fare selection",
            "fare selection page",
            "Fare families (Light, Classic, Flex) with their rules, plus checked baggage and priority boarding as "
            "add-ons.",
            "Search any flight and choose a result.",
            ("As a traveller with skis, I want to add sports baggage so that I know the full price upfront.",),
        ),
        FeatureSpec(
            "seats",
            "Seat selection",
            "seat selection",
            "seat map",
            "Interactive seat map per flight segment with prices for extra legroom and rules for seats at "
            "emergency exits.",
            "After choosing a fare, continue to 'Seats'.",
        ),
        FeatureSpec(
            "hotels",
            "Hotel search and map",
            "hotel search",
            "hotel results map",
            "Hotel results as a list and as a map with clustered markers, filters for price, rating, free "
            "cancellation and distance to the centre.",
            "Start page > 'Hotels' tab; switch to the map with the toggle above the results.",
            ("As a city traveller, I want to see hotels on a map so that I can stay close to the venue.",),
        ),
        FeatureSpec(
            "cars",
            "Car rental",
            "car rental",
            "car rental results",
            "Rental cars at airports and city stations, bookable alone or added to a flight booking with matching "
            "pickup times.",
            "Start page > 'Cars', or the car offer on the trip overview.",
        ),
        FeatureSpec(
            "multicity",
            "Multi-city itineraries",
            "multi-city search",
            "flight search form",
            "Up to five flight legs in one booking, with the results priced as a single itinerary.",
            "Flights tab > 'Multi-city'.",
            ("As a backpacker, I want to book three legs together so that a delay on one leg is covered.",),
        ),
        FeatureSpec(
            "travellers",
            "Traveller details",
            "traveller details",
            "traveller details form",
            "Names, birth dates and passport data for every traveller, with saved travellers for signed-in users.",
            "Shown after seats and before payment.",
        ),
        FeatureSpec(
            "booking",
            "Booking and payment",
            "booking step",
            "trip overview",
            "Final review of all items, payment by card or PayPal and the booking summary with the booking reference.",
            "Continue after the traveller details.",
            ("As a traveller, I want one summary for flight, hotel and car so that I can file it for expenses.",),
        ),
        FeatureSpec(
            "loyalty",
            "Loyalty points",
            "loyalty points",
            "loyalty account page",
            "Points earned on every booking and redeemable against future bookings in steps of 1,000 points.",
            "Account menu > 'Wayfarer Miles'.",
        ),
        FeatureSpec(
            "manage",
            "Manage booking",
            "booking management",
            "trip overview",
            "Change dates, add baggage, cancel within the free cancellation window and download invoices for "
            "existing bookings.",
            "Account menu > 'My trips'.",
            ("As a traveller, I want to add baggage after booking so that I do not pay more at the airport.",),
        ),
    ),
    bugs=(
        (
            "multicity",
            "functional",
            "Multi-city search drops the third leg",
            "Searching Lisbon-Paris, Paris-Rome and Rome-Lisbon returns itineraries with only the first two legs; "
            "the third leg is missing from the results and from the price.",
            "Every result contains all legs of the multi-city search.",
            ("Choose 'Multi-city' and enter Lisbon-Paris, Paris-Rome and Rome-Lisbon.", "Search."),
        ),
        (
            "hotels",
            "functional",
            "Hotel price per night doubles for two guests",
            "Changing the guest count from 1 to 2 doubles the nightly rate of rooms that are priced per room, not "
            "per person.",
            "Per-room rates stay the same for one or two guests.",
            ("Search hotels in Porto for one guest.", "Change the guest count to 2."),
        ),
        (
            "cars",
            "functional",
            "Rental car pickup time defaults to midnight",
            "When a car is added to a flight booking, the pickup time is preset to 00:00 instead of one hour "
            "after landing.",
            "The pickup time defaults to one hour after arrival.",
            ("Book a flight to Berlin.", "Add a rental car on the trip overview."),
        ),
        (
            "loyalty",
            "visual",
            "Loyalty points badge shows a negative balance",
            "After applying 5,000 points and removing them again, the loyalty points badge reads -5,000 until the "
            "page is reloaded.",
            "The badge shows the real balance.",
            ("Apply 5,000 points to a booking.", "Remove the points again."),
        ),
        (
            "flightsearch",
            "functional",
            "Nonstop filter still shows one-stop flights",
            "With the nonstop toggle on, flights via Madrid still appear at the top of the results for Lisbon-Berlin.",
            "Only nonstop flights are listed while the toggle is on.",
            ("Search Lisbon to Berlin.", "Switch on the nonstop toggle."),
        ),
        (
            "fares",
            "content",
            "Fare rules link opens the rules of another fare",
            "The fare rules link next to 'Light' opens the rules of 'Flex', which allow free changes.",
            "Each fare rules link opens the rules of its own fare.",
            ("Search any flight and choose a result.", "Click the fare rules link next to 'Light'."),
        ),
    ),
    hook_bugs=(
        HookBug(
            "flightsearch",
            "high",
            "Passenger count resets to one adult after adding an infant",
            "After adding an infant to two adults, the passenger dropdown closes immediately and the search runs "
            "for 1 adult only.",
            "The search keeps 2 adults and 1 infant.",
            ("Open the flight search form.", "Set 2 adults, then add 1 infant and search."),
            ("dropdown (body)",),
        ),
        HookBug(
            "seats",
            "critical",
            "Seat map crashes the browser tab on Android",
            "Opening the seat map of an A321neo in Chrome 126 for Android (Pixel 7) freezes the page and the tab "
            "crashes with 'Aw, Snap!'; the chosen fare is lost.",
            "The seat map opens and seats can be selected.",
            ("Search Lisbon to Berlin on a phone and choose the Classic fare.", "Continue to 'Seats'."),
            ("crashes", "android"),
        ),
        HookBug(
            "hotels",
            "critical",
            "Hotel map keeps crashing after zooming out past country level",
            "In Safari 17.5 on macOS, zooming the hotel map out beyond country level leaves it crashing and "
            "reloading in a loop; the results list is unusable meanwhile.",
            "The map stops at a minimum zoom level and stays usable.",
            ("Search hotels in Porto and switch to the map.", "Zoom out until the whole of Europe is visible."),
            ("crashing",),
        ),
        HookBug(
            "flightsearch",
            "high",
            "Date range picker jumps back to today on iOS 16 Safari",
            "On an iPhone 11 with iOS 16.7, choosing a return date in the next month scrolls the picker back to "
            "the current month and drops the selection.",
            "Both chosen dates stay selected.",
            ("Open the flight search form on an iPhone.", "Pick a departure date, then a return date next month."),
            ("ios",),
        ),
        HookBug(
            "booking",
            "high",
            "Payment confirmation screen shows the hotel price in the wrong currency",
            "With GBP selected, the booking summary and the card charge are in GBP, but the payment confirmation "
            "screen lists €384 instead of £329.",
            "All amounts use the currency selected for the booking.",
            ("Switch the currency to GBP.", "Book a hotel for two nights with the test card."),
            ("payment confirmation screen",),
        ),
        HookBug(
            "booking",
            "critical",
            "Payment declined banner appears after the booking confirmation e-mail",
            "The confirmation e-mail arrives, but then the screen shows 'Payment declined' and offers a retry, "
            "which creates a second booking.",
            "Once the booking is confirmed, no retry is offered.",
            ("Book a flight with the test card.", "Wait on the trip overview for about a minute."),
            ("payment+confirmation+screen",),
        ),
        HookBug(
            "loyalty",
            "high",
            "Guest checkouts lose the loyalty number",
            "Bookings made without signing in drop the loyalty number entered in the traveller details, so no "
            "points are credited.",
            "The loyalty number is stored and points are credited.",
            ("Book a flight without signing in.", "Enter a valid loyalty number in the traveller details."),
            ("checkouts",),
        ),
    ),
    hook_tests=(HookTest("booking", ("checkout",), title="Checkout flow regression - hotel and car bundle"),),
    words=WEB,
)

HOME = ProductSpec(
    number=601,
    title="Hearthlink Smart Home",
    description=(
        "Companion app for Hearthlink thermostats, smart plugs, cameras and door sensors: pairing, scenes, "
        "schedules, automations and energy reports."
    ),
    capabilities=("search", "rotate", "darkmode", "help", "refresh"),
    envs=(
        "Pixel 7a",
        "iPhone 13",
        "Galaxy Tab S8",
        "iPad Air (5th generation)",
        "Samsung Galaxy S21",
        "iPhone 15",
        "Motorola Edge 40",
    ),
    env_group="phones and tablets",
    env_word="the device model and hub firmware",
    releases=("Hearthlink 3.2", "Hearthlink 3.3 beta", "Hearthlink 3.4"),
    screens=(
        "home dashboard",
        "device detail page",
        "thermostat schedule editor",
        "camera live view",
        "scenes list",
        "energy report",
        "pairing wizard",
        "rooms page",
        "automation editor",
        "hub settings",
    ),
    elements=(
        "temperature dial",
        "power toggle",
        "schedule slider",
        "room filter tabs",
        "scene tile",
        "battery indicator",
        "Add device button",
        "energy chart",
        "camera snapshot thumbnail",
        "Wi-Fi network list",
        "automation trigger card",
        "device rename field",
    ),
    actions=(
        "pair a new smart plug",
        "set the living room thermostat to 21.5 °C",
        "create a scene called 'Movie night'",
        "move a door sensor to the Bedroom",
        "switch the energy report to the monthly view",
        "turn off all lights in the Kitchen",
        "add a sunrise trigger to an automation",
        "rename the hallway camera",
        "invite a second member to the household",
        "start a hub firmware update from the app",
    ),
    errors=(
        "Device not responding",
        "Hub is offline",
        "Could not save schedule",
        "Pairing failed (code 0x1F)",
        "Something went wrong",
    ),
    objects=(
        ("device", "devices"),
        ("scene", "scenes"),
        ("room", "rooms"),
        ("automation", "automations"),
        ("schedule", "schedules"),
    ),
    values=(("21.5 °C", "21 °C"), ("3.2 kWh", "32 kWh"), ("64% battery", "46% battery")),
    search_pairs=(("therm", "thermostat"), ("kitch", "Kitchen"), ("hallw", "hallway")),
    typos=(("Themostat", "Thermostat"), ("Automaton", "Automation"), ("Batery low", "Battery low")),
    opening="Open Hearthlink and sign in to the shared test household.",
    data_hint="the shared 'Test Flat' household with a hub, two plugs, a thermostat and a door sensor",
    out_of_scope=(
        "Devices from other brands",
        "Hub hardware and its LEDs",
        "Voice assistant integrations",
        "Energy prices shown by the utility partner",
    ),
    features=(
        FeatureSpec(
            "pairing",
            "Device pairing",
            "device pairing",
            "pairing wizard",
            "Step-by-step wizard that adds plugs, thermostats, cameras and sensors to the hub by QR code or "
            "manual setup code, including Wi-Fi setup for cameras.",
            "Home dashboard > '+' > 'Add device'.",
            ("As a new user, I want to scan the QR code on the box so that I do not type long setup codes.",),
        ),
        FeatureSpec(
            "dashboard",
            "Home dashboard",
            "home dashboard",
            "home dashboard",
            "Tiles for favourite devices and scenes, grouped by room, with live state and quick toggles.",
            "The first tab after opening the app.",
        ),
        FeatureSpec(
            "thermostat",
            "Thermostat control and schedules",
            "thermostat control",
            "thermostat schedule editor",
            "Set target temperatures, switch between comfort and eco modes and edit the weekly heating schedule "
            "in 30-minute steps.",
            "Open a thermostat from the dashboard and tap 'Schedule'.",
            (
                "As a commuter, I want the flat warm when I come home so that I do not heat it all day.",
                "As a renter, I want an eco mode so that my heating bill stays low.",
            ),
        ),
        FeatureSpec(
            "camera",
            "Camera live view",
            "camera view",
            "camera live view",
            "Live video with two-way audio, snapshots and a timeline of motion events from the last 7 days.",
            "Open a camera tile on the dashboard.",
        ),
        FeatureSpec(
            "scenes",
            "Scenes",
            "scenes",
            "scenes list",
            "Named groups of device states, such as 'Good night' or 'Movie night', that run with one tap.",
            "Dashboard > 'Scenes'.",
            ("As a parent, I want one 'Good night' button so that every light downstairs goes off.",),
        ),
        FeatureSpec(
            "automations",
            "Automations",
            "automations",
            "automation editor",
            "Rules with triggers (time, sunrise, sensor, presence) and actions on devices or scenes.",
            "Dashboard > 'Automations' > '+'.",
        ),
        FeatureSpec(
            "energy",
            "Energy reports",
            "energy reports",
            "energy report",
            "Daily, weekly and monthly consumption per plug and thermostat, with a comparison to the previous period.",
            "Dashboard > 'Energy'.",
            ("As a cost-conscious tenant, I want to see which plug uses most power so that I can unplug it.",),
        ),
        FeatureSpec(
            "alerts",
            "Notifications and alerts",
            "sensor alerts",
            "hub settings",
            "Alerts for open doors, motion, low batteries and offline devices; every notification can be muted "
            "per device or per time window.",
            "Settings > Notifications.",
            ("As a homeowner, I want an alert when the front door opens at night so that I can check the camera.",),
            tags=("notifications", "notification"),
        ),
        FeatureSpec(
            "sharing",
            "Household sharing",
            "household sharing",
            "hub settings",
            "Invite members as owners or guests; guests can use devices but cannot change the setup.",
            "Settings > Household > 'Invite'.",
        ),
        FeatureSpec(
            "firmware",
            "Hub firmware updates",
            "hub updates",
            "hub settings",
            "Over-the-air updates for the hub, started automatically at night or manually from the app.",
            "Settings > Hub > 'Firmware'.",
        ),
    ),
    bugs=(
        (
            "thermostat",
            "functional",
            "Thermostat schedule slider snaps to the wrong half hour",
            "Dragging the schedule slider to 06:30 saves 07:00, and 07:30 saves 08:00.",
            "The slider saves the time shown while dragging.",
            ("Open the thermostat schedule editor.", "Drag the slider to 06:30 and save."),
        ),
        (
            "energy",
            "visual",
            "Energy report labels overlap in February",
            "In the monthly view for February, the day labels 10 to 19 of the energy chart overlap and cannot be read.",
            "Labels are spaced or thinned out so each visible label is readable.",
            ("Open the energy report.", "Switch to the monthly view and go to February."),
        ),
        (
            "dashboard",
            "functional",
            "Smart plug stays online after being unplugged",
            "A smart plug pulled from the wall still shows 'Online' and accepts the power toggle for more than 20 "
            "minutes.",
            "The plug shows 'Device not responding' within a minute.",
            ("Unplug a smart plug from the wall socket.", "Watch its tile on the home dashboard."),
        ),
        (
            "scenes",
            "functional",
            "Scene with twelve devices only switches the first ten",
            "Running the 'Good night' scene turns off ten of its twelve devices; the last two in the list stay on.",
            "A scene switches all of its devices.",
            ("Create a 'Good night' scene with twelve devices.", "Run the scene."),
        ),
        (
            "pairing",
            "functional",
            "QR scanner in the pairing wizard does not focus in low light",
            "In a dim hallway the camera preview of the pairing wizard stays blurry and the QR code on the plug "
            "is never read.",
            "The scanner focuses, or offers manual code entry after a few seconds.",
            ("Start the pairing wizard in a dim room.", "Point the camera at the QR code on the plug."),
        ),
        (
            "sharing",
            "functional",
            "Guest member can remove the hub",
            "A member invited with the 'Guest' role sees 'Remove hub' in the hub settings and can remove the hub "
            "for everyone.",
            "Only owners can remove the hub.",
            ("Invite a member with the 'Guest' role.", "Sign in as the guest and open the hub settings."),
        ),
    ),
    hook_bugs=(
        HookBug(
            "camera",
            "critical",
            "Camera live view crash on Android tablets after rotation",
            "Rotating a Galaxy Tab S8 (Android 14) while the hallway camera is streaming closes the app with a "
            "crash dialog.",
            "The live view rotates and keeps streaming.",
            ("Open the hallway camera on a tablet.", "Rotate the tablet from portrait to landscape."),
            ("crash", "android"),
        ),
        HookBug(
            "thermostat",
            "low",
            "Android home screen widget shows a stale thermostat temperature",
            "The Android widget still shows 19 °C hours after the thermostat was set to 21.5 °C in the app.",
            "The widget shows the current target temperature within a minute.",
            ("Add the Hearthlink widget to the home screen.", "Change the target temperature in the app."),
            ("android",),
        ),
        HookBug(
            "firmware",
            "critical",
            "Pairing wizard crashes when a hub update starts",
            "On an iPhone 13, starting a hub update from the pairing wizard crashes the app; after reopening, "
            "the hub shows 'Updating' for hours.",
            "The update runs in the background and the wizard continues.",
            ("Open the pairing wizard while a hub update is available.", "Tap 'Update now'."),
            ("crashes",),
        ),
        HookBug(
            "pairing",
            "high",
            "iOS keyboard autocorrects the Wi-Fi password during camera setup",
            "On iOS 17.5 the keyboard capitalises and autocorrects the Wi-Fi password field, so setup fails with "
            "'Pairing failed (code 0x1F)'.",
            "Password fields switch off autocorrection and capitalisation.",
            ("Add a camera in the pairing wizard.", "Type a lowercase Wi-Fi password."),
            ("ios", "keyboard"),
        ),
        HookBug(
            "scenes",
            "low",
            "Scene shortcuts missing from the iOS Shortcuts app after update",
            "After updating to Hearthlink 3.4, scenes no longer appear as actions in the iOS Shortcuts app.",
            "All scenes stay available as Shortcuts actions.",
            ("Create a Shortcut with the 'Good night' scene.", "Update the app and open the Shortcut."),
            ("ios",),
        ),
        HookBug(
            "alerts",
            "high",
            "Door sensor notification arrives five minutes late",
            "Opening the front door triggers the open-door notification only about five minutes later, while the "
            "event timeline shows the correct time.",
            "The alert arrives within a few seconds of the door opening.",
            ("Arm the front door sensor.", "Open the door and note the time."),
            ("notification",),
        ),
    ),
    hook_tests=(
        HookTest(
            "alerts",
            ("notification",),
            instruction="Trigger each sensor type and note how long each notification takes to arrive.",
        ),
    ),
    words=MOBILE,
)

LEARN = ProductSpec(
    number=602,
    title="Brightpath Learning",
    description=(
        "E-learning platform with video courses, quizzes, certificates and instructor dashboards for schools "
        "and companies."
    ),
    capabilities=("search", "web", "darkmode", "help", "refresh"),
    envs=(
        "Chrome 126 on Windows 11",
        "Safari 17.5 on macOS Sonoma",
        "Chromebook (ChromeOS 125)",
        "Safari on an iPad (10th generation)",
        "Firefox 127 on Ubuntu 22.04",
        "Edge 125 on Windows 10",
    ),
    env_group="desktop browsers and tablets",
    env_word="the browser version",
    releases=("platform release 24.2", "platform release 24.3", "platform release 24.4 preview"),
    screens=(
        "course catalogue",
        "course overview",
        "lesson player",
        "quiz page",
        "certificates page",
        "learner dashboard",
        "instructor dashboard",
        "discussion forum",
        "assignment upload page",
        "settings page",
    ),
    elements=(
        "Enroll button",
        "progress bar",
        "playback speed menu",
        "subtitle toggle",
        "quiz answer tile",
        "Submit answers button",
        "timer badge",
        "certificate download link",
        "forum reply box",
        "file upload area",
        "course rating stars",
        "chapter list",
    ),
    actions=(
        "enroll in the course 'Intro to Data Analysis'",
        "play lesson 3 at 1.5x speed",
        "switch the subtitles to Spanish",
        "submit a quiz with one question unanswered",
        "upload a 40 MB PDF assignment",
        "download the course certificate",
        "reply to a forum thread with an image",
        "jump to chapter 4 from the chapter list",
        "filter the catalogue by 'Beginner'",
        "export learner progress as CSV",
    ),
    errors=(
        "Upload failed. File too large.",
        "Quiz could not be submitted",
        "Video cannot be played in this browser",
        "You do not have access to this course",
        "Error 500",
    ),
    objects=(
        ("course", "courses"),
        ("lesson", "lessons"),
        ("quiz", "quizzes"),
        ("certificate", "certificates"),
        ("assignment", "assignments"),
    ),
    values=(("72%", "27%"), ("12 of 15 lessons", "12 of 16 lessons"), ("score 8/10", "score 80/10")),
    search_pairs=(("pyth", "Python"), ("stat", "statistics"), ("spreadsh", "spreadsheets")),
    typos=(("Certficate", "Certificate"), ("Qiuz results", "Quiz results"), ("Lesons", "Lessons")),
    opening="Sign in to Brightpath with the learner test account.",
    data_hint=("the learner account learner.qa@brightpath.test and the instructor account teacher.qa@brightpath.test"),
    out_of_scope=(
        "Course content and the accuracy of quiz answers",
        "The native mobile apps",
        "Payment for paid courses",
        "Video quality of individual lessons",
    ),
    features=(
        FeatureSpec(
            "catalogue",
            "Course catalogue",
            "course catalogue",
            "course catalogue",
            "Browse and search courses by topic, level and duration, with ratings and a preview lesson.",
            "The 'Explore' entry in the top navigation.",
            ("As an employee, I want to filter by duration so that I find courses that fit my lunch break.",),
        ),
        FeatureSpec(
            "player",
            "Video lesson player",
            "lesson player",
            "lesson player",
            "Video player with chapters, subtitles in six languages, playback speed and automatic progress saving.",
            "Open any enrolled course and start a lesson.",
            (
                "As a learner on the train, I want playback to continue where I stopped so that I do not search "
                "for the spot.",
            ),
        ),
        FeatureSpec(
            "quizzes",
            "Quizzes and grading",
            "quizzes",
            "quiz page",
            "Multiple-choice and free-text quizzes with optional time limits, instant grading and a review of "
            "wrong answers.",
            "Course overview > a chapter > 'Quiz'.",
        ),
        FeatureSpec(
            "certificates",
            "Certificates",
            "certificates",
            "certificates page",
            "PDF certificates issued when a course is completed, with a verification link for employers.",
            "Learner dashboard > 'Certificates'.",
            ("As a job seeker, I want a certificate link so that employers can verify my course.",),
        ),
        FeatureSpec(
            "progress",
            "Learner progress tracking",
            "progress tracking",
            "learner dashboard",
            "Per-course progress, streaks and time spent, shown on the learner dashboard.",
            "Learner dashboard.",
        ),
        FeatureSpec(
            "instructor",
            "Instructor dashboard",
            "instructor dashboard",
            "instructor dashboard",
            "Group overviews, quiz statistics and CSV exports of learner progress for instructors.",
            "Sign in as the instructor account and open 'Teaching'.",
            (
                "As an instructor, I want the platform to notify me when a learner submits an assignment so "
                "that I can grade it the same day.",
            ),
            tags=("notify",),
        ),
        FeatureSpec(
            "forum",
            "Discussion forum",
            "discussion forum",
            "discussion forum",
            "Threads per course with replies, images, code snippets and instructor badges.",
            "Course overview > 'Discussion'.",
        ),
        FeatureSpec(
            "assignments",
            "Assignment uploads",
            "assignment uploads",
            "assignment upload page",
            "Upload PDFs, spreadsheets or ZIP files up to 50 MB per assignment, with deadlines and late submissions.",
            "Course overview > 'Assignments'.",
            ("As a learner, I want to replace an upload before the deadline so that I can fix a mistake.",),
        ),
        FeatureSpec(
            "a11y",
            "High-contrast theme",
            "high-contrast theme",
            "settings page",
            "Optional theme with stronger text contrast, thicker focus rings and 2 px borders around buttons, "
            "inputs and quiz answer tiles.",
            "Settings > Appearance > 'High contrast'.",
            ("As a learner with low vision, I want clear outlines around controls so that I can find them.",),
            tags=("borders",),
        ),
        FeatureSpec(
            "sso",
            "Single sign-on for organisations",
            "single sign-on",
            "settings page",
            "Learners from companies and schools sign in through their identity provider (SAML or OpenID "
            "Connect) and land in their organisation's catalogue.",
            "Start page > 'Sign in with your organisation'.",
        ),
    ),
    bugs=(
        (
            "certificates",
            "content",
            "Certificate shows the learner name in lower case",
            "The PDF certificate for 'Intro to Data Analysis' prints the name as 'anna schmidt' instead of "
            "'Anna Schmidt'.",
            "The name is printed exactly as in the profile.",
            ("Complete 'Intro to Data Analysis'.", "Download the certificate."),
        ),
        (
            "quizzes",
            "functional",
            "Quiz timer keeps running while the lesson is paused",
            "Pausing the lesson video inside a timed quiz does not stop the timer badge, so learners lose time "
            "while watching the explanation.",
            "The timer pauses together with the embedded video.",
            ("Start a timed quiz that embeds a lesson video.", "Pause the video and wait one minute."),
        ),
        (
            "progress",
            "functional",
            "Course progress stuck at 99%",
            "After finishing all 15 lessons of 'Spreadsheet basics', the progress bar stays at 99% and the "
            "certificate is not unlocked.",
            "Progress reaches 100% and the certificate becomes available.",
            ("Finish all 15 lessons of 'Spreadsheet basics'.", "Open the learner dashboard."),
        ),
        (
            "player",
            "functional",
            "Subtitles drift out of sync after seeking",
            "After jumping forward two minutes in a lesson, subtitles appear about four seconds late for the rest "
            "of the video.",
            "Subtitles stay in sync after seeking.",
            ("Play any lesson with subtitles on.", "Jump forward two minutes."),
        ),
        (
            "instructor",
            "functional",
            "Progress export CSV misses the last learner",
            "The CSV export from the instructor dashboard contains 29 rows for a group of 30 learners; the learner "
            "listed last on screen is missing.",
            "The export contains every learner of the group.",
            ("Sign in as the instructor.", "Export progress for a group of 30 learners."),
        ),
        (
            "forum",
            "usability",
            "Forum reply box clears the draft when an image is attached",
            "Attaching an image to a forum reply removes the text typed so far.",
            "The typed text stays when attachments are added.",
            ("Open a forum thread and type a reply.", "Attach an image."),
        ),
    ),
    hook_bugs=(
        HookBug(
            "player",
            "critical",
            "Lesson player crashing on Android when switching to fullscreen",
            "In Chrome for Android on a Galaxy S21, tapping fullscreen during lesson 3 keeps crashing the tab; "
            "audio plays for a second and the page reloads at the course overview.",
            "The lesson continues in fullscreen.",
            ("Open lesson 3 of 'Intro to Data Analysis' on an Android phone.", "Tap the fullscreen icon."),
            ("crashing", "android"),
        ),
        HookBug(
            "quizzes",
            "high",
            "Free-text quiz answers lose focus when the iOS keyboard opens",
            "On an iPhone 15 with iOS 17.5, tapping a free-text answer opens the keyboard and immediately moves "
            "focus away again, so nothing can be typed.",
            "The answer field keeps focus while the keyboard is open.",
            ("Open a quiz with free-text questions in Safari on an iPhone.", "Tap the first answer field."),
            ("ios", "keyboard"),
        ),
        HookBug(
            "quizzes",
            "high",
            "Ctrl+Enter keyboard shortcut submits a quiz twice",
            "Pressing Ctrl+Enter on the last question sends the quiz twice; the second attempt is counted and "
            "the learner loses one of three attempts.",
            "The shortcut submits the quiz once.",
            ("Open a quiz with three allowed attempts.", "Answer all questions and press Ctrl+Enter."),
            ("keyboard",),
        ),
        HookBug(
            "a11y",
            "visual",
            "Quiz answer tiles lose their border after an answer is selected",
            "In the high-contrast theme, selecting one answer removes the 2 px border from all other tiles, so "
            "they blend into the background.",
            "Every answer tile keeps its outline in the high-contrast theme.",
            ("Switch on the high-contrast theme.", "Open a multiple-choice quiz and pick an answer."),
            ("border",),
        ),
        HookBug(
            "sso",
            "critical",
            "Session expires right after logging in with company SSO",
            "Learners whose organisation uses SSO are signed out again within 30 seconds of logging in and see "
            "the guest catalogue.",
            "The session lasts as long as for password accounts.",
            ("Open the start page and choose 'Sign in with your organisation'.", "Sign in as the SSO test user."),
            ("logging",),
        ),
        HookBug(
            "instructor",
            "high",
            "Instructors not notified about new assignment uploads",
            "When a learner uploads an assignment, the instructor gets no e-mail and no badge on the dashboard, "
            "although both are enabled in the settings.",
            "Instructors get an e-mail and a badge for every new upload.",
            ("Upload an assignment as the learner.", "Sign in as the instructor and open 'Teaching'."),
            ("notified",),
        ),
    ),
    hook_tests=(
        HookTest(
            "a11y",
            ("bordered",),
            instruction="Check that every bordered element keeps a visible outline when it has focus.",
        ),
        HookTest(
            "sso",
            ("logging",),
            instruction="Try logging in with both SSO organisations from the test data.",
        ),
    ),
    words=WEB,
)

KIOSK_PRODUCT = ProductSpec(
    number=603,
    title="Café Lumière Kiosk",
    description=(
        "Self-service ordering kiosk for the Café Lumière chain: touch menu, pastry of the day, allergen "
        "information, loyalty stamps and card or contactless payment."
    ),
    capabilities=("kiosk",),
    envs=(
        "an Elo 22-inch kiosk with build 2.9.0",
        "a 27-inch portrait kiosk with build 2.9.1",
        "an Elo 15-inch countertop unit with build 2.8.4",
        "a 27-inch portrait kiosk with build 3.0.0-rc1",
    ),
    env_group="portrait kiosks",
    env_word="the kiosk build",
    releases=("kiosk build 2.9.0", "kiosk build 2.9.1", "kiosk build 3.0.0-rc1"),
    screens=(
        "welcome screen",
        "menu grid",
        "item detail page",
        "basket panel",
        "payment screen",
        "receipt screen",
        "allergen panel",
        "loyalty scan page",
        "staff settings page",
    ),
    elements=(
        "Start order button",
        "category tabs",
        "size selector",
        "milk option chips",
        "Add to basket button",
        "quantity stepper",
        "basket total",
        "allergen icons",
        "card terminal prompt",
        "receipt choice buttons",
        "language flags",
        "idle countdown",
    ),
    actions=(
        "order a large oat flat white with an extra shot",
        "add two croissants and remove one again",
        "switch the language to French",
        "scan a loyalty QR code",
        "choose 'Eat in' and then 'Take away'",
        "pay with a contactless card",
        "open the allergen panel for the quiche",
        "change the size of a drink in the basket",
        "leave the kiosk idle for 60 seconds",
        "ask for a printed receipt",
    ),
    errors=(
        "Card declined",
        "Terminal not connected",
        "Printer error: paper low",
        "Item unavailable",
        "Please ask a member of staff",
    ),
    objects=(
        ("order", "orders"),
        ("drink", "drinks"),
        ("pastry", "pastries"),
        ("receipt", "receipts"),
        ("loyalty stamp", "loyalty stamps"),
    ),
    values=(("€7.80", "€8.70"), ("4 stamps", "5 stamps"), ("order 0412", "order 0421")),
    search_pairs=(),
    typos=(("Croisant", "Croissant"), ("Capuccino", "Cappuccino"), ("Take awya", "Take away")),
    opening="Switch the kiosk to test mode with the staff card and touch the screen to start.",
    data_hint="the staff card for test mode and the test card in the drawer below the kiosk",
    out_of_scope=(
        "Kitchen display and order printing behind the counter",
        "Card terminal hardware faults",
        "Menu prices (set by each shop)",
        "Cleaning and physical damage of the kiosk",
    ),
    features=(
        FeatureSpec(
            "menu",
            "Touch menu and categories",
            "touch menu",
            "menu grid",
            "Full-screen menu with category tabs for hot drinks, cold drinks, pastries and lunch, large photos and "
            "prices.",
            "Touch the welcome screen and choose 'Start order'.",
            ("As a customer in a hurry, I want big photos so that I find my drink without reading.",),
        ),
        FeatureSpec(
            "drinks",
            "Drink customisation",
            "drink options",
            "item detail page",
            "Sizes, milk options, extra shots, syrups and temperature for every coffee and tea.",
            "Choose any coffee on the menu grid.",
            ("As a regular, I want my oat milk and extra shot remembered so that ordering is quick.",),
        ),
        FeatureSpec(
            "pastry",
            "Pastry of the day",
            "daily special",
            "menu grid",
            "A highlighted tile for the café's daily pastry, such as crème brûlée on Fridays or tarte tatin on "
            "Mondays, with stock counted down as portions sell.",
            "The first tile of the menu grid; stock is set on the staff settings page.",
            tags=("café", "crème brûlée"),
        ),
        FeatureSpec(
            "basket",
            "Basket and upsell",
            "basket",
            "basket panel",
            "Basket panel with quantities, edits and one suggestion such as a pastry that goes with the drink.",
            "Add any item; the basket panel slides in from the right.",
        ),
        FeatureSpec(
            "payment",
            "Card and contactless payment",
            "card payment",
            "payment screen",
            "Payment through the attached card terminal with chip, PIN and contactless, plus printed or e-mailed "
            "receipts.",
            "Fill the basket and choose 'Pay'.",
            ("As a customer, I want to pay by phone so that I do not need my wallet.",),
        ),
        FeatureSpec(
            "resume",
            "Order résumé screen",
            "order summary",
            "basket panel",
            "Before payment the kiosk shows an order résumé with every item, its options and the total, so "
            "customers can check the order once more.",
            "Fill the basket and choose 'Continue'.",
            tags=("résumé",),
        ),
        FeatureSpec(
            "allergens",
            "Allergen information",
            "allergen information",
            "allergen panel",
            "Allergen icons on every item and a panel listing the 14 EU allergens with 'contains' and 'may "
            "contain' markers.",
            "Tap the 'i' icon on any item.",
            ("As a customer with coeliac disease, I want to see gluten clearly so that I can order safely.",),
        ),
        FeatureSpec(
            "loyalty",
            "Loyalty stamps",
            "loyalty stamps",
            "loyalty scan page",
            "Customers scan the QR code from the loyalty app; every drink adds a stamp and the tenth drink is free.",
            "Choose 'Collect stamps' on the basket panel.",
        ),
        FeatureSpec(
            "languages",
            "Language switching",
            "language switching",
            "welcome screen",
            "The kiosk speaks French, English, German and Spanish; the flags on every screen switch the "
            "language without losing the basket.",
            "Flags in the top right corner.",
        ),
        FeatureSpec(
            "staff",
            "Staff mode and idle reset",
            "staff mode",
            "staff settings page",
            "Staff mode for stock and test orders, opened with the staff card, and an idle timer that resets "
            "abandoned orders after 60 seconds.",
            "Hold the staff card to the reader on the right.",
        ),
    ),
    bugs=(
        (
            "allergens",
            "content",
            "Allergen panel lists gluten for the fruit salad",
            "The allergen panel for the fruit salad shows the gluten icon, while the printed menu and the staff "
            "sheet say it is gluten-free.",
            "The panel shows the same allergens as the product data.",
            ("Open the allergen panel for the fruit salad.",),
        ),
        (
            "payment",
            "functional",
            "Contactless prompt times out after ten seconds",
            "The card terminal prompt closes after 10 seconds and returns to the basket panel while customers are "
            "still looking for their card.",
            "The prompt waits at least 30 seconds and shows a countdown.",
            ("Add a drink and choose 'Pay'.", "Wait without presenting a card."),
        ),
        (
            "staff",
            "functional",
            "Idle reset returns to the welcome screen during payment",
            "The 60-second idle countdown keeps running while the card terminal waits for a PIN, so the kiosk "
            "resets in the middle of the payment.",
            "The idle countdown pauses while a payment is in progress.",
            ("Add a drink and choose 'Pay'.", "Insert the test card and wait at the PIN prompt for 60 seconds."),
        ),
        (
            "drinks",
            "functional",
            "Oat milk surcharge added twice",
            "Choosing oat milk, switching to almond milk and back to oat adds the €0.40 surcharge twice.",
            "Each milk option adds its surcharge once.",
            ("Order a flat white.", "Choose oat milk, then almond milk, then oat milk again."),
        ),
        (
            "drinks",
            "visual",
            "Add to basket button cut off on the portrait display",
            "On the 27-inch portrait kiosk, the lower third of the Add to basket button on the item detail page "
            "is hidden below the edge of the display.",
            "The button is fully visible without scrolling.",
            ("Open any coffee on a 27-inch portrait kiosk.",),
        ),
        (
            "payment",
            "functional",
            "Paper-low warning blocks new orders",
            'When the receipt printer reports paper low, the kiosk shows "Printer error: paper low" and refuses '
            "new orders, even from customers who want no receipt.",
            "Ordering continues; only printed receipts are unavailable.",
            ("Let the receipt printer run low on paper.", "Start a new order."),
        ),
    ),
    hook_bugs=(
        HookBug(
            "pastry",
            "high",
            "Crème brûlée missing from the dessert tab after 14:00",
            "From 14:00 the dessert tab shows every pastry except the crème brûlée, although the staff page lists "
            "9 portions in stock.",
            "The crème brûlée stays orderable while its stock is above zero.",
            ("Set the stock of the daily pastry to 9 on the staff settings page.", "Open the dessert tab at 14:05."),
            ("crème brûlée",),
        ),
        HookBug(
            "resume",
            "critical",
            "Order résumé shows the previous customer's items",
            "If the previous order was abandoned on the payment screen, the next customer's order résumé still "
            "lists its items.",
            "Every new order starts with an empty résumé.",
            ("Fill the basket and leave the kiosk on the payment screen.", "Start a new order after the reset."),
            ("résumé",),
        ),
        HookBug(
            "payment",
            "content",
            "Receipt header printed without accents",
            "The printed receipt header reads 'CAFE LUMIERE - RUE DES ARTS' in plain capitals.",
            "The header matches the shop name shown on the kiosk, including its accented letters.",
            ("Pay an order with the test card.", "Choose 'Printed receipt'."),
            ("cafe (no accent)",),
        ),
        HookBug(
            "menu",
            "visual",
            "Welcome screen stretches the café logo on 27-inch displays",
            "On the 27-inch portrait kiosk the café logo on the welcome screen is stretched to twice its width "
            "and looks blurry.",
            "The logo keeps its aspect ratio on every display size.",
            ("Restart the kiosk and wait for the welcome screen.",),
            ("café",),
        ),
        HookBug(
            "payment",
            "critical",
            "Kiosk app crashes when a gift card is scanned twice",
            "Scanning the same gift card a second time on the payment screen crashes the kiosk app; it restarts "
            "to the welcome screen after about 20 seconds and the order is lost.",
            "The second scan shows 'Card already applied' and the order continues.",
            ("Add a drink to the basket and choose 'Pay'.", "Scan the test gift card twice."),
            ("crashes",),
        ),
        HookBug(
            "menu",
            "visual",
            "Category buttons render with uneven borders on the portrait display",
            "On the 27-inch portrait kiosk the left and right borders of the category buttons are 1 px wide and "
            "the top one is 3 px.",
            "All category buttons have even 2 px outlines.",
            ("Open the menu grid on a 27-inch portrait kiosk.",),
            ("borders",),
        ),
        HookBug(
            "payment",
            "critical",
            "Kiosk freezes on the payment confirmation screen after a contactless tap",
            "After the card terminal beeps, the payment confirmation screen stays up with a spinner and ignores "
            "touches until staff restart the kiosk.",
            "The receipt screen appears within 3 seconds of an approved tap.",
            ("Add a drink and choose 'Pay'.", "Tap the contactless test card on the terminal."),
            ("payment confirmation screen",),
        ),
        HookBug(
            "payment",
            "high",
            "On-screen keyboard misses the @ key on the e-mail receipt form",
            "The on-screen keyboard for the e-mail address has no @ key, so customers cannot ask for an e-mail "
            "receipt.",
            "The keyboard layout for e-mail fields includes @ and .com keys.",
            ("Pay an order and choose 'E-mail receipt'.",),
            ("keyboard",),
        ),
    ),
    hook_tests=(
        HookTest("resume", ("résumé",), title="Order résumé screen - exploratory test"),
        HookTest(
            "pastry",
            ("café",),
            goal="Make sure the daily pastry can be ordered as quickly as at a busy café counter at lunchtime.",
        ),
    ),
    tags=("café",),
    words=KIOSK,
)

BANK_HOOK_TESTS = (
    HookTest(
        "auth",
        ("login",),
        goal="Verify that login with one-time codes works in all supported browsers, including right after a "
        "locked account is released.",
    ),
)
BANK.hook_tests = BANK_HOOK_TESTS
PRODUCTS: tuple[ProductSpec, ...] = (FOOD, BANK, TRAVEL, HOME, LEARN, KIOSK_PRODUCT)

# ------------------------------------------------------------------------------------------------ bug templates

# (kind, title, actual_result, expected_result, capabilities needed)
GENERIC_BUGS: tuple[tuple[str, str, str, str, tuple[str, ...]], ...] = (
    (
        "visual",
        "{Elem} overlaps the header on the {screen}",
        "When the {screen} opens, the {elem} is drawn on top of the header and hides the first line of the "
        "title. Scrolling does not move it.",
        "The {elem} sits below the header with the usual spacing.",
        (),
    ),
    (
        "visual",
        "{Elem} is cut off on {env}",
        "On {env} the right edge of the {elem} is clipped, so the last word of its label is not visible.",
        "The {elem} wraps or shrinks so that its whole label is readable.",
        (),
    ),
    (
        "functional",
        "{Elem} ignores the first {tap}",
        "When you {action}, the {elem} only reacts to the second {tap}. The first one shows the pressed state and "
        "then nothing happens.",
        "A single {tap} on the {elem} triggers its action.",
        (),
    ),
    (
        "functional",
        'Generic error "{error}" on the {screen}',
        'Trying to {action} ends with the message "{error}", and everything entered on the {screen} is discarded.',
        "The action succeeds, or a specific message explains what to change without clearing the input.",
        (),
    ),
    (
        "functional",
        "{Screen} keeps spinning after an update",
        "After you {action}, the {screen} shows a loading spinner for more than {n} seconds and never finishes. "
        "Only {restart} brings it back.",
        "The {screen} finishes loading within a few seconds or offers a retry.",
        (),
    ),
    (
        "functional",
        "Going back from the {screen} skips a step",
        "Going back from the {screen} lands on the {screen2} instead of the previous page, and the selected "
        "{obj} is lost.",
        "Back returns to the previous page and keeps the selection.",
        ("refresh",),
    ),
    (
        "functional",
        "{Objs} counter on the {screen} is off by one",
        "The counter shows {n} {objs} while the list underneath contains {n2}.",
        "The counter matches the number of {objs} in the list.",
        ("refresh",),
    ),
    (
        "content",
        "{Elem} not translated when the language is {lang}",
        "With the language set to {lang}, the {elem} still reads in English while the rest of the {screen} is "
        "translated.",
        "Every label on the {screen} follows the selected language.",
        (),
    ),
    (
        "visual",
        "Low contrast of the {elem} in dark mode",
        "In dark mode the {elem} uses dark grey text on a near-black background and is hard to read, especially "
        "on {env}.",
        "Text in dark mode meets the WCAG AA contrast ratio.",
        ("darkmode",),
    ),
    (
        "functional",
        "Double {tap} on the {elem} creates two {objs}",
        "{Tapping} the {elem} twice in quick succession creates two identical {objs} instead of one.",
        "Only one {obj} is created; the control is disabled while the request runs.",
        (),
    ),
    (
        "usability",
        "{Elem} has no accessible label",
        'With the screen reader on, the {elem} is announced only as "button" and gives no hint what it does.',
        "The screen reader announces a descriptive label for the {elem}.",
        (),
    ),
    (
        "functional",
        "Sort order on the {screen} reverts after scrolling",
        "Choosing a different sort order on the {screen} reorders the list once, but after scrolling down the "
        "default order comes back.",
        "The chosen sort order stays in place while scrolling and paging.",
        ("refresh",),
    ),
    (
        "content",
        'Typo "{typo}" on the {screen}',
        'The {screen} shows the label "{typo}".',
        'The label reads "{fixed}".',
        (),
    ),
    (
        "visual",
        "{Screen} layout breaks in landscape",
        "Rotating the {env} to landscape pushes the {elem} out of the visible area, and it cannot be reached by "
        "scrolling.",
        "In landscape the {screen} reflows and the {elem} stays reachable.",
        ("rotate",),
    ),
    (
        "functional",
        "Unsaved input lost after idle time on the {screen}",
        "After about {n} minutes without interaction on the {screen}, the session ends and the form is reset "
        "without any warning.",
        "A warning appears before the session ends, and entered data is kept after signing in again.",
        ("web",),
    ),
    (
        "content",
        "Dates on the {screen} use the wrong regional format",
        "Dates appear in US order, so 6 March 2024 is shown as 03/06/2024 although the region is set to the "
        "United Kingdom.",
        "Dates follow the regional format, e.g. 06/03/2024 for 6 March in the UK.",
        ("refresh",),
    ),
    (
        "functional",
        "{Elem} stays disabled after valid input",
        "After you {action}, the {elem} remains greyed out until {restart}.",
        "The {elem} becomes active as soon as the input is valid.",
        (),
    ),
    (
        "visual",
        "Blurry images on the {screen}",
        "Thumbnails on the {screen} stay pixelated on {env}; the high-resolution version never replaces the "
        "placeholder.",
        "Images load in full resolution after the placeholder.",
        (),
    ),
    (
        "functional",
        "Refreshing the {screen} duplicates {objs}",
        "Every refresh of the {screen} appends the same {objs} again, so after three refreshes each entry appears "
        "three times.",
        "Refreshing replaces the list instead of appending to it.",
        ("refresh",),
    ),
    (
        "visual",
        "Tooltip of the {elem} stays visible after leaving the {screen}",
        "The tooltip that explains the {elem} keeps floating over the {screen2} after navigating away.",
        "Tooltips close when their page is left.",
        (),
    ),
    (
        "functional",
        "{Screen} and {screen2} disagree on the same {obj}",
        "For the same {obj}, the {screen} shows {val1} while the {screen2} shows {val2}.",
        "Both places show the same value.",
        (),
    ),
    (
        "functional",
        'Search for "{partial}" finds nothing',
        'Typing "{partial}" into the search field returns no results, while the full word "{word}" returns '
        "several matches.",
        "Partial words return matching results while typing.",
        ("search",),
    ),
    (
        "visual",
        "Validation message overlaps the {elem}",
        'The message "{error}" is drawn over the {elem} instead of below it and hides the entered value.',
        "Validation messages appear below the field without covering it.",
        (),
    ),
    (
        "usability",
        "Empty {screen} shows no hint",
        "With no {objs} yet, the {screen} is an empty white area without any text or call to action.",
        "An empty state explains how to add the first {obj}.",
        ("refresh",),
    ),
    (
        "usability",
        "Tab order jumps from the {elem} to the footer",
        "Pressing Tab on the {elem} moves focus to the footer links and skips the rest of the {screen}.",
        "Focus moves to the next control in reading order.",
        ("web",),
    ),
    (
        "visual",
        "{Elem} flickers when the {screen} opens",
        "On {env} the transition into the {screen} drops frames and the {elem} flickers two or three times "
        "before it settles.",
        "The {screen} opens with a smooth transition.",
        (),
    ),
    (
        "functional",
        "{Elem} shows outdated values after {background}",
        "After {background}, the {elem} still shows the values from before; only {restart} updates it.",
        "Values refresh automatically when the {screen} becomes visible again.",
        (),
    ),
    (
        "content",
        "Help link on the {screen} leads to a missing page",
        "The 'Help' link on the {screen} opens a page that only says \"Page not found\".",
        "The link opens the matching help article.",
        ("help",),
    ),
    (
        "visual",
        "Long {obj} names are cut without an ellipsis",
        "{Objs} with long names are cut mid-word on the {screen}; the end of the name simply disappears at the edge.",
        "Long names end with an ellipsis or wrap onto a second line.",
        (),
    ),
    (
        "functional",
        "Offline banner stays after the connection returns",
        'After the network comes back, the "You are offline" banner remains on the {screen} and actions keep '
        'failing with "{error}" until {restart}.',
        "The banner disappears and actions work once the connection is back.",
        (),
    ),
    (
        "usability",
        "{Elem} too small to {tap} reliably",
        "The {elem} is only about 28 px high on {env}; several testers hit the neighbouring control instead.",
        "Touch targets are at least 44 by 44 px.",
        (),
    ),
)

DESCRIPTION_ENV = (
    "Reproduced {k} out of {m} attempts on {env}.",
    "Happens every time on {env}; {env2} is not affected.",
    "Seen on {env} and also on {env2}.",
)
DESCRIPTION_MORE = (
    "First noticed during the {kind} of the {ref}.",
    "Not reproducible in {prev_release}, so this looks like a regression.",
    "Occurs with a fresh test account as well as with the shared one.",
    "Only happens after the {ref} was used at least once in the same session.",
    "Screen recording attached; the problem starts at 0:{sec:02d}.",
    "Clearing the cache does not help.",
)
HOOK_DESCRIPTION = (
    "First noticed during the {kind} of the {ref}.",
    "Occurs with a fresh test account as well as with the shared one.",
    "Screen recording attached; the problem starts at 0:{sec:02d}.",
    "Reported by two testers independently.",
)

# (kind, goal templates)
TEST_KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "Exploratory test",
        (
            "Find functional bugs in the {ref} before {release} ships.",
            "Explore the {ref} freely and find anything that stops a user from finishing the main flow.",
        ),
    ),
    (
        "Regression test",
        (
            "Check that recent fixes did not break the {ref}; everything that passed in the previous release "
            "should still pass.",
            "Re-test the {ref} after the rework of the {screen}.",
        ),
    ),
    ("Focused test", ("Concentrate on the {elem} on the {screen} and find every way to get it into a wrong state.",)),
    ("Usability test", ("Find out where first-time users hesitate or get stuck when they use the {ref}.",)),
    ("Release smoke test", ("Make sure the core flows of the {ref} work on {release} within one hour of testing.",)),
    ("Accessibility review", ("Check the {ref} with a screen reader, large text and high zoom, and report barriers.",)),
    (
        "Localization check",
        ("Verify that every text on the {screen} is translated into {lang} and fits its container.",),
    ),
)
TEST_TITLES = (
    "{Kind} " + EN_DASH + " {ref} ({release})",
    "{Ref}: {kind} on {env_group}",
    "{Kind} of the {ref} " + EN_DASH + " {month} cycle",
)
INSTRUCTIONS = (
    "Use {release} from the test environment section; older builds are out of date.",
    "Run the flows on {env} and on at least one more configuration from the device list.",
    "Start on the {screen} and {action}.",
    "Then {action2} and check that the {ref} still behaves as before.",
    "Pay special attention to the {elem} and the {elem2}.",
    "Repeat the main flow with a throttled connection (slow 3G) and note any differences.",
    "Attach a screen recording to every functional bug and a screenshot to every visual one.",
    "Use {data}.",
    "State the exact build number and {env_word} in every bug.",
    "Known issues are listed in the test description; please do not report them again.",
    "Spend about 20 minutes on free exploration after the guided steps.",
    "Switch the language to {lang} at least once and look for untranslated or truncated texts.",
)
GENERIC_OUT_OF_SCOPE = (
    "Performance measurements",
    "Issues only reproducible on emulators or simulators",
    "Spelling in legal texts",
    "Feature requests and design opinions",
)
SEVERITY = {"visual": ("visual",), "content": ("content",), "usability": ("low", "usability")}
FUNCTIONAL_SEVERITY = ("low", "low", "high", "high", "high", "critical")
STATUSES = ("accepted", "accepted", "accepted", "accepted", "forwarded", "forwarded", "rejected", "rejected", "new")


# ------------------------------------------------------------------------------------------------ generation


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def fill(template: str, slots: dict[str, Any]) -> str:
    return cap(template.format(**slots)) if template[:1] == "{" else template.format(**slots)


def make_feature(product: ProductSpec, spec: FeatureSpec, number: int) -> dict[str, Any]:
    return {
        "entity_type": "feature",
        "entity_id": f"feature:{number}",
        "product_id": f"product:{product.number}",
        "title": spec.title,
        "description": spec.description,
        "howtofind": spec.howtofind,
        "user_stories": "\n".join(spec.stories) or None,
    }


def make_test(rng: random.Random, product: ProductSpec, spec: FeatureSpec, feature_id: str) -> dict[str, Any]:
    kind, goals = rng.choice(TEST_KINDS)
    elem, elem2 = rng.sample(product.elements, 2)
    action, action2 = rng.sample(product.actions, 2)
    slots = {
        "kind": kind.lower(),
        "Kind": kind,
        "ref": spec.ref,
        "Ref": cap(spec.ref),
        "release": rng.choice(product.releases),
        "screen": spec.screen if rng.random() < 0.7 else rng.choice(product.screens),
        "elem": elem,
        "elem2": elem2,
        "action": action,
        "action2": action2,
        "env": rng.choice(product.envs),
        "env_group": product.env_group,
        "env_word": product.env_word,
        "data": product.data_hint,
        "lang": rng.choice(LANGUAGES),
        "month": rng.choice(MONTHS),
    }
    picked = sorted(rng.sample(range(len(INSTRUCTIONS)), rng.randint(3, 5)))
    if kind == "Localization check" and len(INSTRUCTIONS) - 1 not in picked:
        picked.append(len(INSTRUCTIONS) - 1)
    out = rng.sample(product.out_of_scope, rng.randint(1, 2)) + rng.sample(GENERIC_OUT_OF_SCOPE, rng.randint(0, 2))
    return {
        "entity_type": "test",
        "entity_id": "",
        "product_id": f"product:{product.number}",
        "title": rng.choice(TEST_TITLES).format(**slots),
        "goal": rng.choice(goals).format(**slots),
        "instructions": " ".join(INSTRUCTIONS[i].format(**slots) for i in picked),
        "out_of_scope": "\n".join(f"- {line}" for line in out),
        "feature_id": feature_id,
        "_kind": kind.lower(),
        "_ref": spec.ref,
    }


def bug_slots(rng: random.Random, product: ProductSpec, screen: str) -> dict[str, Any]:
    elem, elem2 = rng.sample(product.elements, 2)
    screen2 = rng.choice([s for s in product.screens if s != screen])
    obj, objs = rng.choice(product.objects)
    env, env2 = rng.sample(product.envs, 2)
    val1, val2 = rng.choice(product.values)
    partial, word = rng.choice(product.search_pairs) if product.search_pairs else ("", "")
    typo, fixed = rng.choice(product.typos)
    n = rng.randint(3, 30)
    slots: dict[str, Any] = {
        "elem": elem,
        "Elem": cap(elem),
        "elem2": elem2,
        "screen": screen,
        "Screen": cap(screen),
        "screen2": screen2,
        "action": rng.choice(product.actions),
        "error": rng.choice(product.errors),
        "obj": obj,
        "objs": objs,
        "Objs": cap(objs),
        "env": env,
        "env2": env2,
        "val1": val1,
        "val2": val2,
        "partial": partial,
        "word": word,
        "typo": typo,
        "fixed": fixed,
        "lang": rng.choice(LANGUAGES),
        "n": n,
        "n2": n + rng.choice((-1, 1)),
        "k": rng.randint(2, 5),
        "m": 5,
        "sec": rng.randint(3, 59),
    }
    slots.update(product.words)
    return slots


def make_steps(product: ProductSpec, middle: list[str]) -> str:
    steps = [product.opening, *middle]
    return "\n".join(f"{i}. {step}" for i, step in enumerate(steps, start=1))


def severity_for(rng: random.Random, kind: str) -> str:
    return rng.choice(SEVERITY.get(kind, FUNCTIONAL_SEVERITY))


def make_bugs(
    rng: random.Random,
    product: ProductSpec,
    feature_ids: list[str],
    tests: list[dict[str, Any]],
    seen_titles: set[str],
) -> list[dict[str, Any]]:
    """Hand-written hook bugs first, then product-specific bugs, then generic ones, up to BUGS_PER_PRODUCT."""
    by_feature: dict[str, list[dict[str, Any]]] = {}
    for test in tests:
        by_feature.setdefault(test["feature_id"], []).append(test)
    id_by_key = {spec.key: f for spec, f in zip(product.features, feature_ids, strict=True)}
    specs_by_id = {f: spec for spec, f in zip(product.features, feature_ids, strict=True)}
    weights = [rng.randint(1, 6) for _ in tests]
    bugs: list[dict[str, Any]] = []

    def base(test: dict[str, Any], title: str, kind: str) -> dict[str, Any]:
        seen_titles.add(title)
        return {
            "entity_type": "bug",
            "entity_id": "",
            "product_id": f"product:{product.number}",
            "title": title,
            "description": "",
            "steps_to_reproduce": "",
            "actual_result": "",
            "expected_result": "",
            "severity": severity_for(rng, kind),
            "status": rng.choice(STATUSES),
            "test_id": test,
            "feature_id": test["feature_id"],
        }

    for hook in product.hook_bugs:
        test = rng.choice(by_feature[id_by_key[hook.feature]])
        spec = specs_by_id[test["feature_id"]]
        slots = bug_slots(rng, product, spec.screen) | {"kind": test["_kind"], "ref": spec.ref}
        bug = base(test, hook.title, "functional")
        bug["severity"] = hook.kind
        bug["description"] = " ".join(s.format(**slots) for s in rng.sample(HOOK_DESCRIPTION, 2))
        bug["steps_to_reproduce"] = make_steps(product, list(hook.steps))
        bug["actual_result"] = hook.actual
        bug["expected_result"] = hook.expected
        bug["_tags"] = hook.tags
        bugs.append(bug)

    for key, kind, title, actual, expected, steps in product.bugs:
        test = rng.choice(by_feature[id_by_key[key]])
        spec = specs_by_id[test["feature_id"]]
        slots = bug_slots(rng, product, spec.screen) | {
            "kind": test["_kind"],
            "ref": spec.ref,
            "prev_release": rng.choice(product.releases),
        }
        bug = base(test, title, kind)
        bug["description"] = " ".join(
            s.format(**slots) for s in [rng.choice(DESCRIPTION_ENV), *rng.sample(DESCRIPTION_MORE, 1)]
        )
        bug["steps_to_reproduce"] = make_steps(product, list(steps))
        bug["actual_result"] = actual
        bug["expected_result"] = expected
        bug["_tags"] = ()
        bugs.append(bug)

    while len(bugs) < BUGS_PER_PRODUCT:
        test = rng.choices(tests, weights=weights)[0]
        spec = specs_by_id[test["feature_id"]]
        screen = spec.screen if rng.random() < 0.65 else rng.choice(product.screens)
        slots = bug_slots(rng, product, screen) | {
            "kind": test["_kind"],
            "ref": spec.ref,
            "prev_release": rng.choice(product.releases),
        }
        kind, title_t, actual_t, expected_t, needs = rng.choice(GENERIC_BUGS)
        if any(need not in product.capabilities for need in needs):
            continue
        title, actual, expected = fill(title_t, slots), fill(actual_t, slots), fill(expected_t, slots)
        if title in seen_titles:
            continue
        bug = base(test, title, kind)
        bug["description"] = " ".join(
            s.format(**slots) for s in [rng.choice(DESCRIPTION_ENV), *rng.sample(DESCRIPTION_MORE, 1)]
        )
        middle = [f"Go to the {screen}.", cap(slots["action"]) + "."]
        if rng.random() < 0.5:
            middle.append(f"{cap(product.words['tap'])} the {slots['elem']}.")
        middle.append("Compare the result with the expected behaviour.")
        bug["steps_to_reproduce"] = make_steps(product, middle)
        bug["actual_result"] = actual
        bug["expected_result"] = expected
        bug["_tags"] = ()
        bugs.append(bug)
    return bugs


def generate() -> list[dict[str, Any]]:
    rng = random.Random(SEED)
    products: list[dict[str, Any]] = []
    features: list[dict[str, Any]] = []
    tests: list[dict[str, Any]] = []
    bugs: list[dict[str, Any]] = []
    seen_titles: set[str] = set()
    next_feature = FIRST_FEATURE_ID
    for product in PRODUCTS:
        assert len(product.features) == FEATURES_PER_PRODUCT, product.title
        products.append(
            {
                "entity_type": "product",
                "entity_id": f"product:{product.number}",
                "product_id": f"product:{product.number}",
                "title": product.title,
                "description": product.description,
                "_tags": product.tags,
            }
        )
        ids: list[str] = []
        for spec in product.features:
            record = make_feature(product, spec, next_feature)
            record["_tags"] = spec.tags
            features.append(record)
            ids.append(record["entity_id"])
            next_feature += 1

        # every feature gets a test, the rest are spread at random
        owners = list(range(FEATURES_PER_PRODUCT))
        owners += [rng.randrange(FEATURES_PER_PRODUCT) for _ in range(TESTS_PER_PRODUCT - FEATURES_PER_PRODUCT)]
        product_tests: list[dict[str, Any]] = []
        for owner in sorted(owners):
            spec = product.features[owner]
            for _ in range(20):
                test = make_test(rng, product, spec, ids[owner])
                if test["title"] not in seen_titles:
                    break
            seen_titles.add(test["title"])
            test["_tags"] = ()
            product_tests.append(test)
        for hook_test in product.hook_tests:
            owner = next(i for i, s in enumerate(product.features) if s.key == hook_test.feature)
            test = next(t for t in product_tests if t["feature_id"] == ids[owner])
            if hook_test.title:
                test["title"] = hook_test.title
            if hook_test.goal:
                test["goal"] = hook_test.goal
            if hook_test.instruction:
                test["instructions"] = f"{test['instructions']} {hook_test.instruction}"
            test["_tags"] = hook_test.tags
        tests.extend(product_tests)
        bugs.extend(make_bugs(rng, product, ids, product_tests, seen_titles))

    rng.shuffle(tests)
    for number, test in enumerate(tests, start=FIRST_TEST_ID):
        test["entity_id"] = f"test:{number}"
    rng.shuffle(bugs)
    for number, bug in enumerate(bugs, start=FIRST_BUG_ID):
        bug["entity_id"] = f"bug:{number}"
        bug["test_id"] = bug["test_id"]["entity_id"]
    tests.sort(key=lambda r: int(r["entity_id"].split(":")[1]))
    return products + features + tests + bugs


# ------------------------------------------------------------------------------------------------ hook checks


def tokens(text: str) -> list[str]:
    """Roughly FTS5 `unicode61 remove_diacritics 2`: fold accents and case, split on non-alphanumerics."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return re.findall(r"[a-z0-9]+", folded.lower())


def text_fields(record: dict[str, Any], spec_only: bool) -> list[str]:
    names = SEARCH_CONTENT_FIELDS[record["entity_type"]] if spec_only else list(record)
    return [
        str(record[n])
        for n in names
        if n in record and n not in NON_TEXT_FIELDS and not n.startswith("_") and record[n] is not None
    ]


def has_phrase(toks: list[str]) -> bool:
    return any(
        toks[i].startswith("payment") and toks[i + 1].startswith("confirm") and toks[i + 2].startswith("screen")
        for i in range(len(toks) - 2)
    )


def scan(record: dict[str, Any], spec_only: bool) -> list[str]:
    """Hook tags found in a record; every hook word family must be accounted for by exactly these tags."""
    fields = text_fields(record, spec_only)
    raw = "\n".join(fields)
    toks = tokens(raw)
    found: list[str] = []
    for word in ("border", "borders", "bordered", "crash", "crashes", "crashing", "logging", "checkout", "checkouts"):
        if word in toks:
            found.append(word)
    for word in ("notification", "notifications", "notify", "notified"):
        if word in toks:
            found.append(word)
    if "login" in toks or "logins" in toks:
        found.append("login")
    if any(t.startswith("android") for t in toks):
        found.append("android")
    if "ios" in toks:
        found.append("ios")
    if any(t.startswith("keyboard") for t in toks):
        found.append("keyboard")
    if re.search(r"(?i)\bcafé", raw):
        found.append("café")
    if re.search(r"(?i)\bcafe\b", raw):
        found.append("cafe (no accent)")
    if "creme" in toks or "brulee" in toks:
        assert re.search(r"(?i)crème brûlée", raw), record["entity_id"]
        found.append("crème brûlée")
    if any(t.startswith("resum") for t in toks):
        assert "résumé" in raw, record["entity_id"]
        found.append("résumé")
    if has_phrase(toks):
        found.append("payment confirmation screen")
    elif any(t.startswith("confirm") for t in toks):
        assert any(t.startswith("payment") for t in toks) and any(t.startswith("screen") for t in toks)
        found.append("payment+confirmation+screen")
    if any(t.startswith("dropdown") for t in toks):
        found.append("dropdown (title)" if "dropdown" in tokens(record["title"]) else "dropdown (body)")
    # families that must stay out of the corpus entirely or be covered by the tags above
    leaks = [
        t
        for t in toks
        if t in ("log", "logs", "logged", "logout", "logouts", "crashed")
        or (t.startswith("checkout") and t not in ("checkout", "checkouts"))
        or (t.startswith("notif") and t not in ("notification", "notifications", "notify", "notified"))
        or (t.startswith("border") and t not in ("border", "borders", "bordered"))
        or (t.startswith("crash") and t not in ("crash", "crashes", "crashing"))
    ]
    if leaks:
        found.append("leak:" + ",".join(sorted(leaks)))
    return sorted(found)


def check_hooks(records: list[dict[str, Any]]) -> dict[str, list[str]]:
    report: dict[str, list[str]] = {}
    for record in records:
        declared = sorted(record["_tags"])
        everywhere, indexed = scan(record, spec_only=False), scan(record, spec_only=True)
        assert everywhere == declared, (
            f"{record['entity_id']} {record['title']!r}: found {everywhere}, declared {declared}"
        )
        assert indexed == declared, f"{record['entity_id']}: indexed fields give {indexed}, declared {declared}"
        for tag in declared:
            report.setdefault(tag, []).append(record["entity_id"])
    dropdown_body = report["dropdown (body)"]
    assert len(dropdown_body) == 1 and len(report["dropdown (title)"]) == 1
    body = next(r for r in records if r["entity_id"] == dropdown_body[0])
    assert tokens("\n".join(text_fields(body, spec_only=False))).count("dropdown") == 1
    bugs = {r["entity_id"]: set(r["_tags"]) for r in records if r["entity_type"] == "bug"}
    crashy = {"crash", "crashes", "crashing"}
    report["bool: android AND crash*"] = [b for b, t in bugs.items() if "android" in t and t & crashy]
    report["bool: android NOT crash*"] = [b for b, t in bugs.items() if "android" in t and not t & crashy]
    report["bool: crash* NOT android"] = [b for b, t in bugs.items() if "android" not in t and t & crashy]
    report["bool: ios AND keyboard"] = [b for b, t in bugs.items() if {"ios", "keyboard"} <= t]
    report["bool: ios NOT keyboard"] = [b for b, t in bugs.items() if "ios" in t and "keyboard" not in t]
    report["bool: keyboard NOT ios"] = [b for b, t in bugs.items() if "keyboard" in t and "ios" not in t]
    for key, ids in report.items():
        assert ids, key
        ids.sort(key=lambda e: (e.split(":")[0], int(e.split(":")[1])))
    return report


def main() -> int:
    records = generate()
    counts = {kind: sum(r["entity_type"] == kind for r in records) for kind in SEARCH_CONTENT_FIELDS}
    assert counts == {"product": 6, "feature": 60, "test": 120, "bug": 330}, counts
    assert len({r["entity_id"] for r in records}) == len(records)
    report = check_hooks(records)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w", encoding="utf-8", newline="\n") as handle:
        for record in records:
            clean = {k: v for k, v in record.items() if not k.startswith("_")}
            handle.write(json.dumps(clean, ensure_ascii=False) + "\n")
    print(json.dumps({"file": str(OUT), "counts": counts, "hooks": report}, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
