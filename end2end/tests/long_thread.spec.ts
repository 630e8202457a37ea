// A long thread's page: the server renders only its newest messages, earlier ones come a slice at a
// time when the person asks, and a new message still lands at the end with all of them kept.
import { expect, request as playwrightRequest, test } from "@playwright/test";
import { TOKEN } from "../fixtures/access";
import { answer, openHydrated, watchForTrouble } from "./helpers";

/** 130 turns: "Question number n." and "Answer number n.", n from 0. */
const COUNT = 260;

test("a long thread opens at its newest messages and shows the earlier ones on request", async ({ page }, testInfo) => {
  const trouble = watchForTrouble(page);
  const api = await playwrightRequest.newContext({
    baseURL: testInfo.project.use.baseURL,
    extraHTTPHeaders: { Authorization: `Bearer ${TOKEN}` },
  });
  const at = "2026-01-01T00:00:00Z";
  const messages = Array.from({ length: COUNT }, (_, i) => {
    const n = Math.floor(i / 2);
    const [role, text] =
      i % 2 === 0 ? ["user", `Question number ${n}.${n === 2 ? " Wombats dig." : ""}`] : ["assistant", `Answer number ${n}.`];
    return { id: `long-${i}`, run_id: null, role, content: text, blocks: [{ type: "text", text }], created_at: at };
  });
  const made = await api.post("/api/threads/import", {
    data: {
      format: "warden.thread.v1",
      exported_at: at,
      thread: { id: "long", title: "A long thread", archived: false, created_at: at, updated_at: at },
      messages,
      tool_calls: [],
      approvals: [],
    },
  });
  expect(made.status()).toBeLessThan(300);
  const id = (await made.json()).id;

  // Rendered on the server: the newest hundred messages, from turn 80 on, and none before.
  const html = await (await page.request.get(`/chat/${id}`)).text();
  expect(html).toContain("Question number 80.");
  expect(html).toContain("Answer number 129.");
  expect(html).not.toContain("Answer number 79.");

  await openHydrated(page, `/chat/${id}`);
  const conversation = page.getByRole("list", { name: "Conversation" });
  const shown = conversation.locator(".message");
  await expect(shown).toHaveCount(100);
  await expect(shown.first()).toContainText("Question number 80.");
  await expect(shown.last()).toContainText("Answer number 129.");

  const earlier = page.getByRole("button", { name: "Show earlier messages" });
  await earlier.click();
  await expect(shown).toHaveCount(200);
  await expect(shown.first()).toContainText("Question number 30.");
  // What was on screen stays there; the earlier messages are above it.
  await expect(shown.filter({ hasText: "Question number 80." })).toBeInViewport();
  await expect(shown.first()).not.toBeInViewport();
  await earlier.click();
  await expect(shown).toHaveCount(COUNT);
  await expect(shown.first()).toContainText("Question number 0.");
  await expect(earlier).toHaveCount(0);
  // In order, with nothing twice.
  const texts = await conversation.locator(".message p.plain, .message .markdown").allTextContents();
  const turns = texts.map((t) => Number(/number (\d+)\./.exec(t)?.[1]));
  expect(turns).toEqual(Array.from({ length: COUNT }, (_, i) => Math.floor(i / 2)));

  // A new message lands at the end; what was loaded stays.
  const box = page.getByRole("textbox", { name: "Message" });
  await box.fill("Please say hello");
  await box.press("Enter");
  await expect(answer(page, "Hello from the fixture!")).toBeVisible();
  await expect(shown).toHaveCount(COUNT + 2);
  await expect(shown.first()).toContainText("Question number 0.");

  // A search result in the oldest turns: its page reaches back to it, and it is in view.
  await openHydrated(page, "/settings");
  await page.getByRole("searchbox", { name: "Search threads" }).fill("wombats");
  const hit = page.getByRole("region", { name: "Search results" }).locator(`a[href^="/chat/${id}?m="]`);
  await expect(hit).toContainText("A long thread");
  await hit.click();
  await expect(page).toHaveURL(/\?m=[^#]+#m-/);
  const linked = conversation.locator(".message").filter({ hasText: "Wombats dig." });
  await expect(linked).toBeInViewport();
  await expect(page.getByRole("button", { name: "Show earlier messages" })).toBeVisible();
  expect(trouble.errors).toEqual([]);
});
