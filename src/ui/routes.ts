// The web UI's pages and form actions by URL (Blockscout's frontend URLs, so links and habits
// carry over); what a page is given and gives back is in page.ts.
import type { ActionDef, PageDef } from './page.js';
import { API_KEY_ACTIONS, apiKeyRevokePage, apiKeysPage } from './pages/account/api-keys.js';
import { TAG_ACTIONS, tagEditPage, tagRemovePage, tagsPage } from './pages/account/tags.js';
import { CUSTOM_ABI_ACTIONS, customAbiEditPage, customAbiRemovePage, customAbisPage } from './pages/account/custom-abis.js';
import { homePage } from './pages/home.js';
import { blocksPage, blockPage } from './pages/blocks.js';
import { searchPage } from './pages/search.js';
import { txsPage, txPage } from './pages/transactions.js';
import { addressPage } from './pages/address.js';
import { userOpPage, userOpsPage } from './pages/user-operations.js';
import { depositsPage, withdrawalsPage } from './pages/op-stack.js';
import { tokensPage, tokenPage } from './pages/tokens.js';
import { tokenInstancePage } from './pages/token-instance.js';
import { statsPage } from './pages/stats.js';
import { accountsPage } from './pages/accounts.js';
import { verifiedContractsPage } from './pages/verified-contracts.js';
import { VERIFY_ACTIONS, verifyPage } from './pages/verify-contract.js';
import { csvPage } from './pages/csv.js';
import { gasTrackerPage } from './pages/gas-tracker.js';
import { advancedFilterPage } from './pages/advanced-filter.js';
import { SIGN_IN_ACTIONS, codePage, signInPage } from './pages/account/sign-in.js';
import { PROFILE_ACTIONS, profilePage } from './pages/account/profile.js';
import { WATCHLIST_ACTIONS, watchlistEditPage, watchlistPage, watchlistRemovePage } from './pages/account/watchlist.js';
import { PUBLIC_NAME_ACTIONS, editPublicNamePage, publicNamesPage, reviewPublicNamesPage } from './pages/account/public-names.js';
import { NOTIFICATION_ACTIONS, notificationLogPage, notificationsPage, webhookRemovePage, webhookRotatePage } from './pages/account/notifications.js';

export const ACTIONS: ActionDef[] = [...SIGN_IN_ACTIONS, ...PROFILE_ACTIONS, ...API_KEY_ACTIONS, ...TAG_ACTIONS, ...CUSTOM_ABI_ACTIONS, ...WATCHLIST_ACTIONS, ...NOTIFICATION_ACTIONS, ...VERIFY_ACTIONS, ...PUBLIC_NAME_ACTIONS];

export const PAGES: PageDef[] = [
  { pattern: '/', render: homePage },
  { pattern: '/blocks', render: blocksPage },
  { pattern: '/block/:id', render: blockPage },
  { pattern: '/search', render: searchPage },
  { pattern: '/txs', render: txsPage },
  { pattern: '/tx/:hash', render: txPage },
  { pattern: '/ops', render: userOpsPage },
  { pattern: '/op/:hash', render: userOpPage },
  { pattern: '/deposits', render: depositsPage },
  { pattern: '/withdrawals', render: withdrawalsPage },
  { pattern: '/address/:hash', render: addressPage },
  { pattern: '/address/:hash/verify', render: verifyPage },
  { pattern: '/tokens', render: tokensPage },
  { pattern: '/token/:hash', render: tokenPage },
  { pattern: '/token/:hash/instance/:id', render: tokenInstancePage },
  { pattern: '/stats', render: statsPage },
  { pattern: '/accounts', render: accountsPage },
  { pattern: '/verified-contracts', render: verifiedContractsPage },
  { pattern: '/csv', render: csvPage },
  { pattern: '/gas-tracker', render: gasTrackerPage },
  { pattern: '/advanced-filter', render: advancedFilterPage },
  { pattern: '/account', render: profilePage },
  { pattern: '/account/sign-in', render: signInPage },
  { pattern: '/account/sign-in/code', render: codePage },
  { pattern: '/account/watchlist', render: watchlistPage },
  { pattern: '/account/watchlist/:id/edit', render: watchlistEditPage },
  { pattern: '/account/watchlist/:id/remove', render: watchlistRemovePage },
  { pattern: '/account/notifications', render: notificationsPage },
  { pattern: '/account/notifications/log', render: notificationLogPage },
  { pattern: '/account/notifications/webhook/rotate', render: webhookRotatePage },
  { pattern: '/account/notifications/webhook/remove', render: webhookRemovePage },
  { pattern: '/account/api-keys', render: apiKeysPage },
  { pattern: '/account/api-keys/:id/revoke', render: apiKeyRevokePage },
  { pattern: '/account/tags', render: tagsPage },
  { pattern: '/account/tags/:id/edit', render: tagEditPage },
  { pattern: '/account/tags/:id/remove', render: tagRemovePage },
  { pattern: '/account/custom-abis', render: customAbisPage },
  { pattern: '/account/custom-abis/:id/edit', render: customAbiEditPage },
  { pattern: '/account/custom-abis/:id/remove', render: customAbiRemovePage },
  { pattern: '/account/public-names', render: publicNamesPage },
  { pattern: '/account/admin/public-names', render: reviewPublicNamesPage },
  { pattern: '/account/admin/public-names/:id/edit', render: editPublicNamePage },
];
