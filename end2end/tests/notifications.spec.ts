// Notifications in Settings: a person adds a signed webhook and an e-mail channel (after the owner set the
// SMTP server), sends a test to each and sees the receiver's own answer; then allows push on this browser
// (the browser's subscribe() stubbed to return the fixture's subscription, since offline Chromium cannot
// reach a real push service) and the test push arrives at the fixture, VAPID-checked and decrypted.
import { expect, test, type Page } from "@playwright/test";
import { notifyFixtureBinary, NotifyFixture } from "../fixtures/notify";
import { openHydrated, watchForTrouble } from "./helpers";

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

function channelRow(page: Page, name: string) {
  const table = page.getByRole("table", { name: "Your channels" });
  return table.getByRole("row").filter({ has: page.getByRole("rowheader", { name, exact: true }) });
}

async function addChannel(page: Page, kind: string, name: string, fill: (form: ReturnType<Page["getByRole"]>) => Promise<void>) {
  await page.getByRole("button", { name: "Add a channel" }).click();
  const form = page.getByRole("form", { name: "Add a channel" });
  await form.getByRole("combobox", { name: "Kind" }).selectOption({ label: kind });
  await form.getByRole("textbox", { name: "Name" }).fill(name);
  await fill(form);
  await form.getByRole("button", { name: "Add", exact: true }).click();
  await expect(form).toHaveCount(0);
}

test("a person's webhook, e-mail and browser channels each deliver a test to the real receivers", async ({ page, context }) => {
  const trouble = watchForTrouble(page);
  fixture = await NotifyFixture.start(binary);
  const { http, smtp_port, webhook_secret, subscription } = fixture.listening;
  const stamp = Date.now();

  await openHydrated(page, "/settings");
  await expect(page.getByRole("heading", { name: "Notifications" })).toBeVisible();

  // The owner's SMTP server: the fixture's, without TLS.
  const smtp = page.getByRole("form", { name: "E-mail server (SMTP)" });
  await smtp.getByRole("textbox", { name: "Host" }).fill("127.0.0.1");
  await smtp.getByRole("spinbutton", { name: "Port" }).fill(String(smtp_port));
  await smtp.getByRole("combobox", { name: "Security" }).selectOption("none");
  await smtp.getByRole("textbox", { name: "From" }).fill("Warden <warden@test.example>");
  await smtp.getByRole("button", { name: "Save e-mail server" }).click();
  await expect(page.getByText("Saved.")).toBeVisible();

  // A signed webhook: the receiver checks the signature, and the page shows its answer.
  const hook = `hook-${stamp}`;
  await addChannel(page, "Webhook (JSON, signed)", hook, async (form) => {
    await form.getByRole("textbox", { name: "Webhook URL" }).fill(`${http}/webhook`);
    await form.getByLabel(/Signing secret/).fill(webhook_secret);
  });
  await channelRow(page, hook).getByRole("button", { name: `Send a test to ${hook}` }).click();
  await expect(channelRow(page, hook)).toContainText("Delivered: HTTP 200 OK");
  const hooks = await fixture.received("webhook");
  expect(hooks).toHaveLength(1);
  expect(hooks[0].body.signature_verified).toBe(true);
  expect(hooks[0].body.json.kind).toBe("test");
  expect(await page.content()).not.toContain(webhook_secret);

  // E-mail through the SMTP server just set.
  const mail = `mail-${stamp}`;
  await addChannel(page, "E-mail", mail, async (form) => {
    await form.getByRole("textbox", { name: "E-mail address" }).fill("owner@example.com");
  });
  await channelRow(page, mail).getByRole("button", { name: `Send a test to ${mail}` }).click();
  await expect(channelRow(page, mail)).toContainText(/Delivered: 250 2\.0\.0 Ok: queued as FIXTURE/);
  const mails = await fixture.received("email");
  expect(mails[0].body.content_type).toBe("multipart/alternative");
  expect(mails[0].body.text).toContain("/settings#notifications");
  expect(mails[0].body.html).toContain("/settings#notifications");

  // Push on this browser: permission granted, subscribe() answers the fixture's subscription.
  await context.grantPermissions(["notifications"]);
  await page.addInitScript((sub) => {
    PushManager.prototype.subscribe = async function () {
      return { endpoint: sub.endpoint, toJSON: () => sub, unsubscribe: async () => true } as unknown as PushSubscription;
    };
  }, subscription);
  await page.reload();
  await expect(page.locator("body[data-hydrated]")).toBeAttached();
  await page.getByRole("button", { name: "Allow notifications on this browser" }).click();
  await expect(page.getByText("Notifications are on for this browser.")).toBeVisible();
  const browser = "This browser";
  await expect(channelRow(page, browser)).toBeVisible();
  await channelRow(page, browser).getByRole("button", { name: `Send a test to ${browser}` }).click();
  await expect(channelRow(page, browser)).toContainText("Delivered: HTTP 201 Created");
  const pushes = await fixture.received("web_push");
  expect(pushes).toHaveLength(1);
  expect(pushes[0].body.payload.title).toBe("Test notification from Warden");
  expect(pushes[0].body.payload.url).toContain("/settings#notifications");

  expect(trouble.errors).toEqual([]);
  expect(trouble.dialogs).toEqual([]);
});

test("a browser whose push subscription fails says why", async ({ page, context }) => {
  await context.grantPermissions(["notifications"]);
  await page.addInitScript(() => {
    PushManager.prototype.subscribe = async function () {
      throw new DOMException("Registration failed - push service not available", "AbortError");
    };
  });
  await openHydrated(page, "/settings");
  await page.getByRole("button", { name: "Allow notifications on this browser" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "could not subscribe to its push service" })).toContainText(
    "push service not available",
  );
});
