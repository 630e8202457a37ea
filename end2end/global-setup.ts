// Signs in once the way a person does: opens the sign-in link in the browser, checks the token left
// the address bar, and saves the session cookie as the storage state every test starts from.
import { chromium, expect, type FullConfig } from "@playwright/test";
import { signInLink } from "./fixtures/access";

export default async function globalSetup(config: FullConfig): Promise<void> {
  const project = config.projects[0].use;
  const base = project.baseURL as string;
  const browser = await chromium.launch(project.launchOptions);
  try {
    const page = await browser.newPage();
    await page.goto(signInLink(base));
    await expect(page).toHaveURL(`${base}/`);
    // The debug build's wasm (what scripts/test.sh tests) is about 14 MB: give it the tests' own wait.
    await expect(page.locator("body[data-hydrated]")).toBeAttached({ timeout: 15_000 });
    await page.context().storageState({ path: project.storageState as string });
  } finally {
    await browser.close();
  }
}
