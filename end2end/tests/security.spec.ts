// The gate as a browser meets it: signing in by the printed link, nothing of the app without it, a
// page on another host name (a DNS-rebinding or cross-site attacker) cannot use the API even while
// the person is signed in, Warden cannot be framed, and a model answer's remote image loads nothing.
import { expect, test, type Page } from "@playwright/test";
import * as http from "node:http";
import { signInLink, TOKEN } from "../fixtures/access";
import { startChat, watchForTrouble } from "./helpers";

const appPort = Number(process.env.WARDEN_E2E_PORT ?? 3010);
const base = `http://127.0.0.1:${appPort}`;
/** The port the scripted "show a remote image" answer points its images at (end2end/fixtures/script.json). */
const leakPort = 3997;

/** Thread titles as the API lists them, asked with the token (not through the page under test). */
async function threadTitles(): Promise<string[]> {
  const res = await fetch(`${base}/api/threads`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { title: string }[]).map((t) => t.title);
}

/** Serves `html` as the page at `url` (any host name) for this page, without touching the network. */
async function servePageAt(page: Page, url: string, html: string): Promise<void> {
  await page.route(url, (route) => route.fulfill({ status: 200, contentType: "text/html", body: html }));
}

test.describe("without a session", () => {
  test.use({ storageState: { cookies: [], origins: [] } });

  test("the sign-in link signs in, the token leaves the address bar, and the page runs under its CSP", async ({ page }) => {
    const violations: string[] = [];
    page.on("console", (m) => {
      if (/Content.Security.Policy/i.test(m.text())) violations.push(m.text());
    });
    const trouble = watchForTrouble(page);
    await page.goto(signInLink(base, "/settings"));
    await expect(page).toHaveURL(`${base}/settings`);
    expect(page.url()).not.toContain("token");
    await expect(page.locator("body[data-hydrated]")).toBeAttached();
    // The session works for the app's own calls: a chat starts and answers.
    await startChat(page, "say hello through the gate");
    await expect(page.getByText("That is all.")).toBeVisible();
    const cookies = await page.context().cookies();
    const session = cookies.find((c) => c.name === `warden_session_${appPort}`);
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe("Strict");
    expect(session?.value).not.toContain(TOKEN);
    expect(violations).toEqual([]);
    expect(trouble.errors).toEqual([]);
  });

  test("without signing in the chat is not shown, and a wrong link does not sign in", async ({ page }) => {
    const res = await page.goto("/");
    expect(res?.status()).toBe(401);
    await expect(page.getByRole("heading", { name: "Sign in to Warden" })).toBeVisible();
    await expect(page.getByRole("textbox", { name: "Your prompt" })).toHaveCount(0);
    await expect(page.getByRole("navigation", { name: "Threads" })).toHaveCount(0);

    const wrong = await page.goto(`/?token=${TOKEN.slice(0, -1)}x`);
    expect(wrong?.status()).toBe(401);
    await expect(page.getByText("not valid")).toBeVisible();
    expect(await page.context().cookies()).toEqual([]);
    const api = await page.request.get("/api/threads");
    expect(api.status()).toBe(401);
  });
});

test("a page on another host name cannot call the API, even while the person is signed in", async ({ page, context }) => {
  // The person is signed in (the test's storage state): the cookie is in this browser.
  expect((await context.cookies(base)).some((c) => c.name === `warden_session_${appPort}`)).toBe(true);
  // The address of the server function that starts a chat, as Warden's own page calls it: a form
  // POST, which a browser sends cross-site without asking first (no CORS preflight).
  const startChatCall = page.waitForRequest((r) => r.method() === "POST" && new URL(r.url()).pathname.startsWith("/api/start_chat"));
  await startChat(page, "say hello before the attack");
  const startChatPath = new URL((await startChatCall).url()).pathname;
  const threadsBefore = (await threadTitles()).length;
  // DNS rebinding: the attacker's name answers first with their page, then with 127.0.0.1, so the
  // page's same-origin fetches reach Warden under the attacker's host name. Chromium resolves
  // *.localhost to loopback, which plays the rebound name here.
  const rebound = `http://rebind.localhost:${appPort}`;
  await servePageAt(page, `${rebound}/attack`, "<!DOCTYPE html><title>attacker</title><p>hello</p>");
  await page.goto(`${rebound}/attack`);
  const sameOrigin = await page.evaluate(async () => {
    const res = await fetch("/api/threads", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "rebound attack" }) });
    return { status: res.status, body: await res.text() };
  });
  expect(sameOrigin.status).toBe(403);
  expect(JSON.parse(sameOrigin.body).error.code).toBe("host_not_allowed");
  const sameOriginForm = await page.evaluate(async (fnPath) => {
    const res = await fetch(fnPath, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "prompt=rebound+attack" });
    return { status: res.status, body: await res.text() };
  }, startChatPath);
  expect(sameOriginForm.status).toBe(403);
  expect(JSON.parse(sameOriginForm.body).error.code).toBe("host_not_allowed");

  // Cross-site: the attacker's page submits a form to the server function at Warden's real address,
  // as a navigation (a fetch() from this page is refused by the browser before it is sent, so it
  // would prove nothing). The browser sends it with the attacker's Origin, and Warden refuses it.
  const crossSiteAnswer = page.waitForResponse((r) => r.url() === `${base}${startChatPath}` && r.request().method() === "POST");
  await page.evaluate((url) => {
    const form = document.createElement("form");
    form.method = "POST";
    form.action = url;
    const prompt = document.createElement("input");
    prompt.name = "prompt";
    prompt.value = "cross-site attack";
    form.append(prompt);
    document.body.append(form);
    form.submit();
  }, `${base}${startChatPath}`);
  const refused = await crossSiteAnswer;
  expect(refused.status()).toBe(403);
  expect((await refused.json()).error.code).toBe("cross_origin");
  const titles = await threadTitles();
  expect(titles).not.toContain("rebound attack");
  expect(titles).toHaveLength(threadsBefore);
});

test("another site cannot frame Warden", async ({ page }) => {
  const attacker = `http://frame.localhost:${appPort + 2}`;
  await servePageAt(page, `${attacker}/`, `<!DOCTYPE html><title>framer</title><iframe name="victim" src="${base}/"></iframe>`);
  // Chromium asks for the page and then refuses to show it (the request ends as blocked by response),
  // so the frame's request is awaited, not a response, and the headers are read from a direct request.
  const framed = page.waitForRequest((r) => r.url() === `${base}/`);
  await page.goto(`${attacker}/`);
  await framed;
  const res = await page.request.get(`${base}/`);
  expect(res.status()).toBe(200);
  expect(res.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
  expect(res.headers()["x-frame-options"]).toBe("DENY");
  // The browser refused to show it: the frame holds no Warden content.
  // The frame is there (else the counts below would be 0 for want of a frame), and empty.
  const frame = page.frame({ name: "victim" });
  expect(frame, "the attacker's frame exists").not.toBeNull();
  await expect.poll(async () => (frame ? await frame.locator("body[data-hydrated]").count().catch(() => 0) : -1)).toBe(0);
  await expect.poll(async () => (frame ? await frame.getByRole("textbox", { name: "Your prompt" }).count().catch(() => 0) : -1)).toBe(0);
});

test("a model answer with a remote image loads nothing from that host", async ({ page }) => {
  const hits: string[] = [];
  const listener = http.createServer((req, res) => {
    hits.push(req.url ?? "");
    res.writeHead(200, { "content-type": "image/png" });
    res.end();
  });
  await new Promise<void>((resolve, reject) => {
    listener.once("error", reject);
    listener.listen(leakPort, "127.0.0.1", () => resolve());
  });
  try {
    const requested: string[] = [];
    page.on("request", (r) => {
      if (r.url().includes(`:${leakPort}`)) requested.push(r.url());
    });
    await startChat(page, "show a remote image");
    const answer = page.locator(".message.assistant").filter({ hasText: "End of the image answer." });
    await expect(answer).toBeVisible();
    // Shown as a link that names the host, never as an image.
    await expect(answer.getByRole("link", { name: `[image: workspace chart — from 127.0.0.1:${leakPort}]` })).toBeVisible();
    await expect(answer.getByText(`[image: ref — from 127.0.0.1:${leakPort}]`)).toBeVisible();
    await expect(answer.locator("img")).toHaveCount(0);
    // After a reload (server-rendered this time) still nothing is fetched.
    await page.reload();
    await expect(page.locator("body[data-hydrated]")).toBeAttached();
    await expect(page.getByText("End of the image answer.")).toBeVisible();
    // A request in flight would have reached the listener by now; prove the listener works at the end.
    expect(requested).toEqual([]);
    expect(hits).toEqual([]);
    const probe = await fetch(`http://127.0.0.1:${leakPort}/probe`);
    expect(probe.status).toBe(200);
    expect(hits).toEqual(["/probe"]);
  } finally {
    await new Promise<void>((resolve) => listener.close(() => resolve()));
  }
});

test("a browser signed out in Settings is signed out at once", async ({ browser }) => {
  // Two browsers of the person's, each signed in by the link (fresh contexts: the shared session of the
  // other tests is left alone).
  const fresh = { storageState: { cookies: [], origins: [] } };
  const other = await browser.newContext({ ...fresh, userAgent: "Warden e2e other browser" });
  const mine = await browser.newContext({ ...fresh, userAgent: "Warden e2e this browser" });
  try {
    const otherPage = await other.newPage();
    await otherPage.goto(signInLink(base, "/"));
    await expect(otherPage.locator("body[data-hydrated]")).toBeAttached();
    await expect(otherPage.getByRole("textbox", { name: "Your prompt" })).toBeVisible();

    const page = await mine.newPage();
    const trouble = watchForTrouble(page);
    await page.goto(signInLink(base, "/settings"));
    await expect(page.locator("body[data-hydrated]")).toBeAttached();
    const section = page.getByRole("region", { name: "Signed-in browsers" });
    await expect(section.getByText("every port of this host")).toBeVisible();
    const thisRow = section.getByRole("row").filter({ hasText: "Warden e2e this browser" });
    await expect(thisRow).toContainText("(this browser)");
    const otherRow = section.getByRole("row").filter({ hasText: "Warden e2e other browser" });
    await expect(otherRow).toContainText("127.0.0.1");
    await expect(otherRow).not.toContainText("(this browser)");

    await otherRow.getByRole("button", { name: "Sign out Warden e2e other browser" }).click();
    await expect(otherRow).toHaveCount(0);
    await expect(thisRow).toBeVisible();

    // The other browser is signed out at once: its next page is the sign-in page, its calls are refused.
    const res = await otherPage.reload();
    expect(res?.status()).toBe(401);
    await expect(otherPage.getByRole("heading", { name: "Sign in to Warden" })).toBeVisible();
    const api = await other.request.get(`${base}/api/threads`);
    expect(api.status()).toBe(401);
    // This one is still signed in.
    await page.reload();
    await expect(page.locator("body[data-hydrated]")).toBeAttached();
    await expect(thisRow).toContainText("(this browser)");
    expect(trouble.errors).toEqual([]);
  } finally {
    await other.close();
    await mine.close();
  }
});
