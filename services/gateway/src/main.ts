import { runMain } from '@guildhall/shared';
import { definition } from './service';

runMain(definition);
