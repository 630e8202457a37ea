// An approver away from the desk decides from her phone. The owner routes a member's file writes to one
// approver, who has allowed notifications on her browser (its subscribe() stubbed to answer the fixture's
// subscription: offline Chromium cannot reach a real push service). The member's run waits; the push
// arrives at the fixture's push service (VAPID checked, payload decrypted) with who asks and links of her
// own. A mail scanner fetches the approve link first and decides nothing; she opens it on a 390 px phone,
// sees the card (the file and its diff, who asks, the risk), confirms, and the member's run goes on.
// The confirm page is saved as screenshots, light and dark (for the note).
import { expect, test, type Browser } from "@playwright/test";
import * as fs from "node:fs";
import { notifyFixtureBinary, NotifyFixture } from "../fixtures/notify";
import { answer, approvalCard, openHydrated, startChat, watchForTrouble, workspacePath } from "./helpers";
import { invited } from "./people_helpers";

let binary = "";
let fixture: NotifyFixture | undefined;

test.beforeAll(() => {
  test.setTimeout(900_000); // a cold build of the fixture may wait for other builds
  binary = notifyFixtureBinary();
});

test.afterEach(() => {
  fixture?.stop();
  fixture = undefined;
});

/** A phone: 390 px wide, touch, no session of anyone's. */
async function phone(browser: Browser, colorScheme: "light" | "dark") {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
    colorScheme,
    storageState: { cookies: [], origins: [] },
  });
  return context.newPage();
}

test("an approver confirms a member's write from a push on her phone, after a scanner opened the link", async ({ page, browser, request }, testInfo) => {
  fixture = await NotifyFixture.start(binary);
  const note = workspacePath("phone-note.txt");
  fs.rmSync(note, { force: true });
  const tag = Date.now().toString(36);
  const [beaName, moName] = [`Bea${tag}`, `Mo${tag}`];
  const bea = await invited(page, browser, "Approver", beaName);
  const mo = await invited(page, browser, "Member", moName);

  // The owner routes Mo's file writes to Bea.
  await openHydrated(page, "/settings");
  const policies = page.getByRole("region", { name: "Approval policies" });
  await policies.getByRole("button", { name: "Add a policy" }).click();
  const form = policies.getByRole("form", { name: "A new policy" });
  await form.getByLabel("Name", { exact: true }).fill(`Bea for ${moName}`);
  await form.getByLabel("Tool (name or glob such as write_*)").fill("write_*");
  await form.getByLabel("Asked by").selectOption({ label: moName });
  await form.getByLabel(`${beaName} (Approver)`).check();
  await form.getByRole("button", { name: "Save the policy" }).click();
  await expect(policies.getByRole("heading", { name: `Bea for ${moName}` })).toBeVisible();

  // Bea allows notifications on her browser.
  const subscription = fixture.listening.subscription;
  await bea.context().grantPermissions(["notifications"]);
  await bea.addInitScript((sub) => {
    PushManager.prototype.subscribe = async function () {
      return { endpoint: sub.endpoint, toJSON: () => sub, unsubscribe: async () => true } as unknown as PushSubscription;
    };
  }, subscription);
  await openHydrated(bea, "/settings");
  await bea.getByRole("button", { name: "Allow notifications on this browser" }).click();
  await expect(bea.getByText("Notifications are on for this browser.")).toBeVisible();

  // Mo's run waits for Bea.
  await startChat(mo, "A phone note please");
  await expect(approvalCard(mo)).toContainText(`Asked by ${moName}`);
  const chatUrl = mo.url();

  // The push reaches Bea's browser's push service, with links of her own.
  await expect.poll(async () => (await fixture!.received("web_push")).length, { timeout: 30_000 }).toBeGreaterThan(0);
  const [push] = await fixture.received("web_push");
  expect(push.body.payload.title).toBe("Approval needed: Change a file");
  expect(push.body.payload.body).toContain(`${moName} (member)`);
  const approve: string = push.body.payload.links.find((l: { intent: string }) => l.intent === "approve").url;
  expect(approve).toContain("/decide/");

  // A mail scanner follows the link: the page, nothing decided.
  const scanned = await request.get(approve, { headers: { cookie: "" } });
  expect(scanned.status()).toBe(200);
  expect(await scanned.text()).toContain("phone-note.txt");
  expect(fs.existsSync(note)).toBe(false);

  // Bea opens it on her phone: the card, made for the small screen, in light and dark.
  const dark = await phone(browser, "dark");
  await dark.goto(approve);
  await expect(dark.getByRole("heading", { name: "Approve this request?" })).toBeVisible();
  await dark.screenshot({ path: testInfo.outputPath("phone-confirm-dark.png"), fullPage: true });
  await dark.context().close();

  const mobile = await phone(browser, "light");
  const trouble = watchForTrouble(mobile);
  await mobile.goto(approve);
  await expect(mobile.getByRole("heading", { name: "Approve this request?" })).toBeVisible();
  const card = mobile.getByRole("region", { name: /Change a file/ });
  await expect(card).toContainText("phone-note.txt");
  await expect(card).toContainText("+approved from a phone");
  await expect(card).toContainText(`Asked by ${moName} (member)`);
  await expect(card).toContainText(/risk/i);
  await expect(mobile.getByText(`You decide as ${beaName}`)).toBeVisible();
  const widths = await mobile.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  expect(widths[0]).toBeLessThanOrEqual(widths[1]);
  const button = mobile.getByRole("button", { name: "Approve" });
  const box = await button.boundingBox();
  expect(box!.height).toBeGreaterThanOrEqual(44);
  await mobile.screenshot({ path: testInfo.outputPath("phone-confirm-light.png"), fullPage: true });

  // The tap decides, as Bea; Mo's run goes on.
  await button.tap();
  await expect(mobile.getByText("Approved. The run goes on.")).toBeVisible();
  expect(trouble.errors).toEqual([]);
  await openHydrated(mo, chatUrl);
  await expect(answer(mo, "The phone note is written.")).toContainText("Wrote 22 bytes to phone-note.txt");
  expect(fs.readFileSync(note, "utf8")).toBe("approved from a phone\n");

  // The link is spent.
  await mobile.goto(approve);
  await expect(mobile.getByRole("heading", { name: "This link was used" })).toBeVisible();
});
