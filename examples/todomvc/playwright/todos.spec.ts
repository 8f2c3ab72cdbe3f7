import { expect, test } from "@playwright/test";

test.beforeEach(async ({ page }) => {
  await page.goto("/");
});

test("adds a todo", async ({ page }) => {
  await page.getByPlaceholder("What needs to be done?").fill("Buy milk");
  await page.getByPlaceholder("What needs to be done?").press("Enter");
  await expect(page.getByTestId("todo-count")).toHaveText("1 item left");
  await expect(page.locator("#todo-list li")).toHaveCount(1);
});

test("completes the first of two todos", async ({ page }) => {
  const input = page.getByTestId("new-todo");
  await input.fill("Walk the dog");
  await input.press("Enter");
  await input.fill("Feed the cat");
  await input.press("Enter");
  await page.locator("#todo-list li:nth-child(1) .toggle").check();
  await expect(page.getByTestId("todo-count")).toHaveText("1 item left");
  await expect(page.locator("#todo-list li.completed")).toHaveCount(1);
});

test("clears completed todos", async ({ page }) => {
  const input = page.getByTestId("new-todo");
  await input.fill("Pay rent");
  await input.press("Enter");
  await input.fill("Call mum");
  await input.press("Enter");
  await page.locator("#todo-list li:nth-child(1) .toggle").check();
  await page.getByRole("button", { name: "Clear completed" }).click();
  await expect(page.locator("#todo-list li")).toHaveCount(1);
  await expect(page.locator("#todo-list")).toContainText("Call mum");
});

test("shows only the active todos", async ({ page }) => {
  const input = page.getByTestId("new-todo");
  await input.fill("Water plants");
  await input.press("Enter");
  await input.fill("Book flights");
  await input.press("Enter");
  await page.getByLabel("Mark all as complete").check();
  await page.locator("#todo-list li:nth-child(2) .toggle").uncheck();
  await page.getByRole("link", { name: "Active", exact: true }).click();
  await expect(page).toHaveURL(/#\/active$/);
  await expect(page.getByText("Book flights")).toBeVisible();
});
