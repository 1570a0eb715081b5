// The order's activities, each answering at once.

import { ActivityWorker } from '@weft/guest';

export default new ActivityWorker()
  .activity('Reserve', '1.0', () => 'reserved')
  .activity('Charge', '1.0', () => 'receipt-1')
  .activity('Refund', '1.0', () => 'refunded')
  .activity('Pack', '1.0', () => 'tracking-1');
